"""``python -m evalgap`` runs the command line."""

import sys

from evalgap.cli import main

sys.exit(main())

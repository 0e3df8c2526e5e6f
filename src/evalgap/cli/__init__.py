"""The ``evalgap`` command line: parse options, call one library function, render its result.

One module per command or group; the options more than one command takes are defined once
in ``_options``; ``_render`` finds a result's renderer; ``_main`` holds the group and
``main``, the one place a bad input becomes one line on stderr and exit code 2.

Exit codes: 0 success, 2 bad input (one line on stderr naming the option or file and what
to do).
"""

import os

# The command line's arithmetic is small dense solves and vectorized sums, where OpenBLAS's
# threads spin against each other and cost more than they save (a Bradley-Terry refit took
# 3.7 ms on one thread and 73 ms on two; `ranks --battles` on 150 models x 100,000 battles
# 3.5 s against 28.5 s); studies spread over processes with --jobs. Set before NumPy loads;
# a user's own setting stands.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

from evalgap.cli._main import cli, main  # noqa: E402

__all__ = ["cli", "main"]

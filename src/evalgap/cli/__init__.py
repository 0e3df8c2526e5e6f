"""The ``evalgap`` command line: parse options, call one library function, render its result.

One module per command or group; the options more than one command takes are defined once
in ``_options``; ``_render`` finds a result's renderer; ``_main`` holds the group and
``main``, the one place a bad input becomes one line on stderr and exit code 2.

Exit codes: 0 success, 2 bad input (one line on stderr naming the option or file and what
to do).
"""

from evalgap.cli._main import cli, main

__all__ = ["cli", "main"]

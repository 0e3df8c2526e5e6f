"""A griffe extension: the names `evalgap/__init__.py` exports lazily, as members of `evalgap`.

The package imports its public names on first attribute access (`_HOMES`, a dict from name to
defining module), which static analysis cannot follow. This adds each as an alias of its
definition, so the reference documents `evalgap.compare` where users call it.
"""

from __future__ import annotations

import ast

import griffe


class LazyExports(griffe.Extension):
    """Add `evalgap.<name>` aliases for every entry of `evalgap._HOMES`."""

    def on_package(self, *, pkg: griffe.Module, **kwargs) -> None:
        if pkg.path != "evalgap":
            return
        homes = ast.literal_eval(str(pkg.members["_HOMES"].value))
        for name, home in homes.items():
            pkg.set_member(name, griffe.Alias(name, f"{home}.{name}", parent=pkg))

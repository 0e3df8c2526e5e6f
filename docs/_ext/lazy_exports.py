"""Griffe extensions for the API reference.

`LazyExports`: the names `evalgap/__init__.py` exports lazily, as members of `evalgap`. The
package imports its public names on first attribute access (`_HOMES`, a dict from name to
defining module), which static analysis cannot follow. This adds each as an alias of its
definition, so the reference documents `evalgap.compare` where users call it. It also shows
the docstrings' Sphinx roles (:func:`x`) as code, which Markdown would print literally.
"""

from __future__ import annotations

import ast
import re

import griffe

SPHINX_ROLE = re.compile(r":(?:func|class|mod|meth|attr|data|exc|obj):`~?([^`]+)`")


class LazyExports(griffe.Extension):
    """Add `evalgap.<name>` aliases for every entry of `evalgap._HOMES`."""

    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = SPHINX_ROLE.sub(r"`\1`", obj.docstring.value)

    def on_package(self, *, pkg: griffe.Module, **kwargs) -> None:
        if pkg.path != "evalgap":
            return
        homes = ast.literal_eval(str(pkg.members["_HOMES"].value))
        for name, home in homes.items():
            pkg.set_member(name, griffe.Alias(name, f"{home}.{name}", parent=pkg))

"""The views every result shares, drawn from its own terminal renderer.

A result renders itself: its class calls its renderer in ``_render(console)`` (see
:mod:`evalgap.jobs._pages`), so no table of class names picks a renderer. The Markdown
report replays the same renderer into a recording console
(:func:`evalgap.report.markdown.result_markdown`), and :func:`terminal_html` into an HTML
page or a notebook fragment: every view says the same numbers and sentences.
"""

from __future__ import annotations

import html
import io
from typing import Any

# A notebook cell's frame around the terminal report (rich's own markup, escaped by rich)
FRAGMENT = (
    "<pre style=\"font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; "
    "line-height: 1.3; white-space: pre-wrap\">{code}</pre>"
)
PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ margin: 1.5em auto; max-width: 1220px; padding: 0 1em; }}
{stylesheet}
</style>
</head>
<body>
<pre style="font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px">{code}</pre>
</body>
</html>
"""
# The width the terminal report is laid out at in a page or a cell
WIDTH = 120


def terminal_html(result: Any, *, title: str | None) -> str:
    """Return ``result``'s terminal report as HTML: a self-contained page titled ``title``,
    or, with ``title=None``, a fragment for a notebook cell. Every name is escaped."""
    from rich.console import Console

    console = Console(
        record=True, width=WIDTH, file=io.StringIO(), emoji=False, highlight=False,
        force_terminal=True, color_system="truecolor",
    )  # fmt: skip
    result._render(console)
    if title is None:
        return console.export_html(inline_styles=True, code_format=FRAGMENT)
    # the title goes into the template before rich fills it, braces doubled so a title
    # holding "{code}" stays text
    named = html.escape(title).replace("{", "{{").replace("}", "}}")
    return console.export_html(code_format=PAGE.replace("{title}", named))

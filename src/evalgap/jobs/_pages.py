"""What every job result shows, each view drawn from the result's own numbers.

A result renders itself (issue 38): its class names its terminal renderer (``_render``),
and where it has them its own HTML page (``_page``) and figure (``_figure``). From those,
:class:`Views` gives every result the same methods:

* ``to_markdown(path)``: the terminal report replayed as GitHub-flavoured Markdown;
* ``to_html(path)``: the result's page (``audit``, ``ranks``, ``card``), or the terminal
  report as a self-contained HTML page;
* ``_repr_html_()``: the terminal report as an HTML fragment, for a notebook cell;
* ``plot()``: the result's figure as a matplotlib ``Figure``, where a picture helps.

Renderers live in :mod:`evalgap.report` and are imported inside these methods, so a job
module does not load rich or matplotlib until a view is asked for, and mypy and the import
contracts see every renderer a result uses (no table of class names).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, ClassVar

from evalgap.errors import InputError, escape

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from rich.console import Console


class Views:
    """The views of a job result (see the module)."""

    # The Markdown report's heading (the command that printed it)
    _heading: ClassVar[str] = "evalgap"

    if TYPE_CHECKING:  # every result is also a Result (evalgap._results), which gives it

        def to_dict(self) -> dict[str, Any]: ...

    def _render(self, console: Console) -> None:
        """Print the terminal report (each result class names its renderer)."""
        raise NotImplementedError(f"{type(self).__name__} has no terminal renderer")

    def _page(self, title: str | None, provenance: dict[str, Any] | None) -> str | None:
        """The result's own HTML page, or None (the terminal report stands in)."""
        return None

    def _figure(self) -> Figure | None:
        """The result's figure, or None where a picture does not help."""
        return None

    def _markdown(self) -> str:
        """The Markdown report: the terminal report replayed (the card writes its own)."""
        from evalgap.report.markdown import result_markdown

        return result_markdown(self)

    def to_markdown(self, path: str | os.PathLike[str] | None = None) -> str:
        """Return the report of the command's ``--markdown`` (written to ``path`` when given).

        GitHub-flavoured Markdown for a CI job summary or a pull-request comment: a heading,
        then the tables and sentences the terminal prints, as text (no ANSI codes), every
        cell escaped. ``path="-"`` writes it to standard output.

        Parameters
        ----------
        path : str or Path, optional
            Where to write it.

        Returns
        -------
        str
            The Markdown.
        """
        text = self._markdown()
        if path is not None:
            from evalgap.io._write import atomic_write

            atomic_write(path, lambda handle: handle.write(text), option="path=", what="the report")
        return text

    def to_html(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        title: str | None = None,
        provenance: dict[str, Any] | None = None,
    ) -> str:
        """Return the result's HTML page (written to ``path`` when given).

        ``audit``, ``ranks`` and ``card`` results draw the page of their command's ``--html``
        (see :func:`evalgap.report_html`: the same page apart from the provenance section);
        every other result is its terminal report as a self-contained page. ``path="-"``
        writes it to standard output.

        Parameters
        ----------
        path : str or Path, optional
            Where to write the page.
        title : str, optional
            The page title.
        provenance : dict, optional
            What produced the result (the command line records its inputs and options).

        Returns
        -------
        str
            One self-contained HTML document.
        """
        if title is not None and (not isinstance(title, str) or not title.strip()):
            raise InputError(
                "{title} must be non-empty text; got {got!r}", param="title", got=title
            )
        page = self._page(title, provenance)
        if page is None:
            from evalgap.report.views import terminal_html

            page = terminal_html(self, title=title or self._heading)
        if path is not None:
            from evalgap.io._write import atomic_write

            atomic_write(path, lambda handle: handle.write(page), option="path=", what="the report")
        return page

    def _repr_html_(self) -> str:
        """The terminal report as an HTML fragment (what a notebook cell shows)."""
        from evalgap.report.views import terminal_html

        return terminal_html(self, title=None)

    def plot(self) -> Figure:
        """Return the result's figure (a matplotlib ``Figure``; ``fig.savefig(path)`` saves it).

        Raises
        ------
        InputError
            When the result has no figure (its table says it all: ``to_frame()``).
        """
        figure = self._figure()
        if figure is None:
            raise InputError(
                escape(f"{type(self).__name__} has no figure; its numbers are in to_frame() "
                       "and to_dict()"),
                param="plot",
            )  # fmt: skip
        return figure


class Study(Views):
    """A simulation study: its table in the layout of the paper's table or figure it
    reproduces (one renderer for every study)."""

    _heading: ClassVar[str] = "evalgap simulate"

    def _render(self, console: Console) -> None:
        from evalgap.report.terminal import render_simulation

        render_simulation(self, console)


# The names results were built from before every result had every view (kept so a result
# may still list them; both are Views)
class HtmlPage(Views):
    """A result with a page of its own (``audit``, ``ranks``, ``card``)."""


class MarkdownPage(Views):
    """A result with a Markdown report (every result has one now)."""

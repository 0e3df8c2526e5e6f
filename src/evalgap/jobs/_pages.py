"""What a job result with an HTML page shares: ``to_html``, the page of the command's ``--html``."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from evalgap._results import Result


class HtmlPage:
    """A result the HTML report can draw (``audit --html``, ``ranks --html``)."""

    def to_html(
        self,
        path: str | os.PathLike | None = None,
        *,
        title: str | None = None,
        provenance: dict | None = None,
    ) -> str:
        """Return the HTML report of the command's ``--html`` (written to ``path`` when given).

        See :func:`evalgap.report_html`: the same page as the command line's, apart from
        the provenance section.

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
            The self-contained HTML page.
        """
        from evalgap.report.html import report_html

        page = cast("Result", self)  # mixed into result classes only (AuditResult, RanksResult)
        return report_html(page, path, title=title, provenance=provenance)


class MarkdownPage:
    """A result with a Markdown report (``--markdown``): ``to_markdown``."""

    def to_markdown(self, path: str | os.PathLike | None = None) -> str:
        """Return the report of the command's ``--markdown`` (written to ``path`` when given).

        GitHub-flavoured Markdown for a CI job summary or a pull-request comment: a heading,
        then the tables and sentences the terminal prints, as text (no ANSI codes), every
        cell escaped.

        Parameters
        ----------
        path : str or Path, optional
            Where to write it.

        Returns
        -------
        str
            The Markdown.
        """
        from evalgap.report.markdown import result_markdown

        text = result_markdown(self)
        if path is not None:
            from evalgap.io._write import atomic_write

            atomic_write(path, lambda handle: handle.write(text), option="path=", what="the report")
        return text

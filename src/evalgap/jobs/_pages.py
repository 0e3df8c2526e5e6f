"""What a job result with an HTML page shares: ``to_html``, the page of the command's ``--html``."""

from __future__ import annotations

import os


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

        return report_html(self, path, title=title, provenance=provenance)

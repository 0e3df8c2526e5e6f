"""Self-contained HTML reports: inline CSS and SVG figures, no scripts, no network."""

from __future__ import annotations

import html
import math

import pandas as pd

from evalgap.audit import AuditResult
from evalgap.report import plots
from evalgap.stats import power as pw

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.85em; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; }
th { background: #f4f4f4; } td.text, th.text { text-align: left; }
.unresolved { color: #b3401b; font-weight: 600; } .resolved { color: #1b5fb3; }
.note { color: #555; font-size: 0.9em; } figure { margin: 1em 0; }
.scroll { overflow-x: auto; }
svg { max-width: 100%; height: auto; }
"""

PROCEDURE_NAMES = {
    "fixed_n": "Fixed n",
    "bonferroni": "Bonferroni",
    "sidak": "Sidak",
    "holm": "Holm",
    "bh": "Benjamini-Hochberg",
    "anytime_valid": "Anytime-valid (e-process)",
    "clustered": "Clustered (design effect)",
}


def audit_report(result: AuditResult, *, title: str = "evalgap audit") -> str:
    """Return the audit as one HTML page: settings, verdicts, tables, stress tests, figures."""
    r = result
    parts = [
        f"<h1>{_e(title)}</h1>",
        f"<p>alpha = {r.alpha:g}, power = {r.power:g}; family: {_e(r.family)} pairs, "
        f"m = {r.family_size} (Bonferroni multiplies N* by {r.bonferroni_inflation:.2f}, "
        f"Sidak by {r.sidak_inflation:.2f}); {len(r.pairs)} pairs on "
        f"{r.pairs['task'].nunique()} task(s).</p>",
    ]
    parts.append("<h2 id='verdicts'>Unresolved pairs by procedure</h2>")
    verdicts = r.verdict_table()
    verdicts["procedure"] = verdicts["procedure"].map(PROCEDURE_NAMES)
    parts.append(_table(verdicts, text=("procedure",)))
    parts.append(
        f"<p class='note'>Correlation sensitivity (rho -/+ 0.1, clamped): "
        f"{r.sensitivity['correlation_minus_0.1']} / {r.sensitivity['correlation']} / "
        f"{r.sensitivity['correlation_plus_0.1']} unresolved.</p>"
    )
    parts.append(f"<h2 id='ties'>Tie groups ({_e(PROCEDURE_NAMES[r.tie_procedure])})</h2>")
    for task, groups in r.tie_groups.items():
        shown = "; ".join("{" + ", ".join(_e(m) for m in g) + "}" for g in groups if len(g) > 1)
        parts.append(
            f"<p><b>{_e(task)}</b>: {shown or 'every model is told apart from its neighbours'}</p>"
        )
    flips = r.flips()
    if "resolved_clustered" in r.pairs.columns:
        parts.append("<h2 id='flips'>Pairs whose verdict flips under clustering</h2>")
        if len(flips):
            flips = flips.assign(
                required_n=flips["required_n"].map(pw.round_up),
                required_n_clustered=flips["required_n_clustered"].map(pw.round_up),
            )
            parts.append(
                _table(
                    flips[
                        [
                            "task",
                            "model_a",
                            "model_b",
                            "delta",
                            "icc",
                            "design_effect",
                            "required_n",
                            "required_n_clustered",
                            "n_items",
                        ]
                    ],
                    text=("task", "model_a", "model_b"),
                )
            )
        else:
            parts.append("<p>None: clustering leaves every resolved pair resolved.</p>")
    parts.append("<h2 id='pairs'>Pairs</h2>")
    parts.append(_pairs_table(r))
    parts.append("<h2 id='binned'>Pairs by gap size</h2>")
    parts.append(_table(r.binned_table(), text=("bucket",)))
    parts.append("<h2 id='figures'>Figures</h2>")
    parts.append(
        _figure(
            plots.resolution_bars(r.pairs),
            "r = N*/N per pair (log scale); above the dashed line: unresolved.",
        )
    )
    parts.append(
        _figure(
            plots.efficiency(r.pairs),
            "Items an unpaired design would need, relative to the paired N*.",
        )
    )
    if r.trajectories:
        parts.append(
            _figure(
                plots.trajectories(r.trajectories),
                "Mixture e-process along the items for the pairs nearest the "
                "anytime-valid boundary.",
            )
        )
    if r.cluster_stress is not None:
        parts.append(_cluster_section(r))
    for note in r.notes:
        parts.append(f"<p class='note'>note: {_e(note)}</p>")
    body = "\n".join(parts)
    return (
        f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{_e(title)}</title><style>{STYLE}</style></head>\n<body>\n{body}\n"
        f"</body></html>\n"
    )


def _cluster_section(r: AuditResult) -> str:
    s = r.cluster_stress
    parts = [
        "<h2 id='clusters'>Cluster stress tests</h2>",
        f"<p>Cluster bootstrap: B = {s.n_resamples}, seed {s.seed}. Share of draws by "
        "unresolved count under the clustered verdict:</p>",
    ]
    dist = pd.DataFrame(
        {
            "unresolved": list(s.unresolved_distribution),
            "share": list(s.unresolved_distribution.values()),
        }
    )
    parts.append(_table(dist))
    if len(s.intervals):
        parts.append(_table(s.intervals, text=("task", "model_a", "model_b")))
        parts.append(_figure(plots.cluster_icc(s.intervals), "ICC of D per pair."))
    if s.unresolved_distribution:
        parts.append(
            _figure(
                plots.unresolved_distribution(s.unresolved_distribution, len(r.pairs)),
                "Unresolved count across cluster-bootstrap draws.",
            )
        )
    parts.append("<p>Leave one cluster out:</p>")
    parts.append(_table(s.leave_one_out, text=("task", "dropped")))
    alt = pd.DataFrame(
        {"definition": list(s.alternatives), "unresolved": list(s.alternatives.values())}
    )
    parts.append("<p>Alternative cluster definitions (random clusters are the null check):</p>")
    parts.append(_table(alt, text=("definition",)))
    return "\n".join(parts)


def _pairs_table(r: AuditResult) -> str:
    columns = [
        "task",
        "model_a",
        "model_b",
        "delta",
        "correlation",
        "a_only",
        "b_only",
        "p_mcnemar",
        "p_exact",
        "p_mid_p",
        "p_bootstrap",
        "p_paired_t",
        "required_n",
        "resolution_ratio",
    ]
    frame = r.pairs[[c for c in columns if c in r.pairs.columns]].copy()
    frame["required_n"] = frame["required_n"].map(pw.round_up)
    for proc in r.procedures:
        frame[proc] = r.pairs[f"resolved_{proc}"].map(
            lambda v: "" if pd.isna(v) else ("resolved" if v else "unresolved")
        )
    frame = frame.dropna(axis=1, how="all")
    return _table(frame, text=("task", "model_a", "model_b", *r.procedures))


def _table(frame: pd.DataFrame, text=()) -> str:
    head = "".join(f"<th class='{'text' if c in text else ''}'>{_e(c)}</th>" for c in frame.columns)
    rows = []
    for record in frame.itertuples(index=False):
        cells = []
        for column, value in zip(frame.columns, record, strict=True):
            css = "text" if column in text else ""
            if isinstance(value, str) and value in ("unresolved", "resolved"):
                css += f" {value}"
            cells.append(f"<td class='{css.strip()}'>{_e(_format(value))}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    return f"<div class='scroll'>{table}</div>"


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption class='note'>{_e(caption)}</figcaption></figure>"


def _format(value) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isinf(value):
            return "inf"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        if value != 0 and abs(value) < 1e-3:
            return f"{value:.2e}"
        return f"{value:.4g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _e(value) -> str:
    return html.escape(str(value))

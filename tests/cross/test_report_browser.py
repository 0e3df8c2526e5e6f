"""The audit's HTML report, opened in a real headless browser (Debian's chromium) at 1280 px.

CI installs chromium; elsewhere the tests are skipped when no browser is found.

The report itself carries no script. To measure where the verdict columns land, the test
opens a copy of the page with a small probe script appended, which writes the geometry of
every verdict header into the DOM that ``--dump-dom`` prints. Console messages are checked
on the report as written.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess

import numpy as np
import pandas as pd
import pytest

from evalgap._scores import align
from evalgap.jobs.audit import audit_counts, audit_scores
from evalgap.report.html import audit_report

from synthetic import clustered_board, table_7

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
if BROWSER is None and os.environ.get("CI"):
    raise RuntimeError("CI must install chromium for the report test (.ci/run does)")
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no chromium on this machine")
WIDTH = 1280
FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--enable-logging=stderr",
    "--v=0",
    f"--window-size={WIDTH},1000",
]
# Appended to a copy of the page only: records each verdict header's box and the box of
# every ancestor that clips horizontally (the table's scroll container), in CSS pixels.
PROBE = """<script>
(function () {
  var out = {viewport: window.innerWidth, page: document.documentElement.scrollWidth, cells: []};
  var cells = document.querySelectorAll("table.pairs th.verdict");
  for (var i = 0; i < cells.length; i++) {
    var box = cells[i].getBoundingClientRect(), left = 0, right = window.innerWidth;
    for (var el = cells[i].parentElement; el; el = el.parentElement) {
      if (getComputedStyle(el).overflowX !== "visible") {
        var c = el.getBoundingClientRect();
        left = Math.max(left, c.left); right = Math.min(right, c.right);
      }
    }
    out.cells.push({text: cells[i].textContent, left: box.left, right: box.right,
                    visible_left: left, visible_right: right});
  }
  var pairs = document.querySelector("table.pairs");
  var box = pairs.parentElement;
  out.pairs = {scroll: box.scrollWidth, client: box.clientWidth, columns: []};
  var heads = pairs.querySelectorAll("thead th");
  for (var j = 0; j < heads.length; j++) {
    var h = heads[j].getBoundingClientRect();
    out.pairs.columns.push({text: heads[j].textContent, right: h.right});
  }
  var pre = document.createElement("pre");
  pre.id = "probe"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""


def chromium(profile, *args) -> subprocess.CompletedProcess:
    out = subprocess.run(
        [BROWSER, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out


def open_in_browser(path, profile) -> tuple[str, str]:
    out = chromium(profile, "--dump-dom", path.as_uri())
    return out.stdout, out.stderr


def verdict_geometry(path, profile) -> dict:
    probe = path.with_name("probe-" + path.name)
    probe.write_text(path.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"))
    dom = chromium(profile, "--dump-dom", probe.as_uri()).stdout
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found, dom[-500:]
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))


def screenshot_width(path, profile, tmp_path) -> int:
    png = tmp_path / "report.png"
    chromium(profile, f"--screenshot={png}", path.as_uri())
    header = png.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">I", header[16:20])[0]


def assert_verdicts_visible(path, profile, procedures: int) -> None:
    geometry = verdict_geometry(path, profile)
    assert geometry["viewport"] == WIDTH
    # the pair table fits the window: no horizontal scroll, the last column (a p-value) whole
    assert geometry["pairs"]["scroll"] <= geometry["pairs"]["client"], geometry["pairs"]
    assert all(c["right"] <= WIDTH for c in geometry["pairs"]["columns"]), geometry["pairs"]
    assert len(geometry["cells"]) == procedures
    for cell in geometry["cells"]:
        # the whole header box is inside the window and inside the table's scroll box
        assert cell["left"] >= cell["visible_left"] - 0.5, cell
        assert cell["right"] <= cell["visible_right"] + 0.5, cell
        assert cell["right"] <= WIDTH, cell


def long_named(frame: pd.DataFrame) -> pd.DataFrame:
    """Model names as long as real leaderboard names (the widest case for the table)."""
    names = {m: f"organisation-{m}/Some-Model-{m}-70B-Instruct-v0.3_5shots" for m in frame.model}
    return frame.assign(model=frame["model"].map(names))


def test_clustered_report_at_1280px(tmp_path):
    frame = long_named(clustered_board(cluster_effect=0.6, n_items=2000))
    result = audit_scores(align(frame), n_cluster_bootstrap=200, seed=3)
    path = tmp_path / "audit.html"
    text = audit_report(result, provenance={"command": "evalgap audit", "inputs": []})
    assert "<script" not in text  # the report is script-free
    path.write_text(text, encoding="utf-8")
    dom, log = open_in_browser(path, tmp_path / "profile")
    assert ":CONSOLE" not in log  # no console message at all, errors included
    sections = (
        "models", "verdicts", "chains", "tiers", "ranks", "flips", "pairs", "binned", "figures",
        "clusters",
    )
    for section in (*sections, "provenance", "legend"):
        assert f'id="{section}"' in dom
    # forest, rank sets, q per pair, N* paired vs unpaired, e-process, ICC per pair, bootstrap
    # counts
    assert len(re.findall(r"<svg", dom)) == 7
    # the per-model table comes first, with human headers
    assert dom.index('id="models"') < dom.index('id="verdicts"') < dom.index('id="pairs"')
    assert "Items scored" in dom and "Resolved under" in dom and "model_a" not in dom
    # self-contained: nothing on the page is loaded from elsewhere
    assert not re.search(r"""(?:src|href)\s*=\s*["'](?:https?:)?//""", dom)
    assert_verdicts_visible(path, tmp_path / "profile", len(result.procedures))
    assert screenshot_width(path, tmp_path / "profile", tmp_path) == WIDTH


def test_all_pairs_report_with_heatmap_at_1280px(tmp_path):
    accuracies = tuple(np.linspace(0.75, 0.55, 9))
    frame = long_named(clustered_board(n_items=800, accuracies=accuracies, seed=1))
    result = audit_scores(align(frame), family="all", n_cluster_bootstrap=0, seed=1)
    path = tmp_path / "all.html"
    path.write_text(audit_report(result), encoding="utf-8")
    dom, log = open_in_browser(path, tmp_path / "profile")
    assert ":CONSOLE" not in log
    assert 'id="heatmap"' in dom and "All 36 pairs are shown." in dom
    assert_verdicts_visible(path, tmp_path / "profile", len(result.procedures))


def test_counts_report_loads(tmp_path):
    path = tmp_path / "counts.html"
    path.write_text(audit_report(audit_counts(table_7())), encoding="utf-8")
    dom, log = open_in_browser(path, tmp_path / "profile")
    assert ":CONSOLE" not in log
    # forest and q per pair; no per-item data, so no e-process and N* still drawn
    assert dom.count("<svg") == 3 and "rank 5" in dom
    assert_verdicts_visible(path, tmp_path / "profile", 6)


def test_ranks_page_in_the_browser(tmp_path):
    """The ranks page (rank-interval plot, table, heatmap): no console message, every figure."""
    import evalgap
    from evalgap.report.html import ranks_report

    frame = long_named(clustered_board(n_items=1500))
    result = evalgap.ranks(frame, n_bootstrap=300)
    path = tmp_path / "ranks.html"
    text = ranks_report(result, provenance={"command": "evalgap ranks", "inputs": []})
    assert "<script" not in text
    path.write_text(text, encoding="utf-8")
    dom, log = open_in_browser(path, tmp_path / "profile")
    assert ":CONSOLE" not in log
    tasks = result.ranks["task"].nunique()
    assert len(re.findall(r"<svg", dom)) == 2 * tasks  # rank intervals and heatmap per task
    assert "Rank set" in dom and "Tier" in dom


def test_card_page_in_the_browser(tmp_path):
    """The leaderboard card: no console message, both tables per task, every model named."""
    import evalgap

    frame = long_named(clustered_board(n_items=1500))
    result = evalgap.card(frame, n_bootstrap=300)
    path = tmp_path / "card.html"
    text = result.to_html(path)
    assert "<script" not in text
    dom, log = open_in_browser(path, tmp_path / "profile")
    assert ":CONSOLE" not in log
    assert dom.count("<table") == 2 * len(result.tasks)
    for model in frame["model"].unique():
        assert model.split("/")[0] in dom
    assert screenshot_width(path, tmp_path / "profile", tmp_path) == WIDTH

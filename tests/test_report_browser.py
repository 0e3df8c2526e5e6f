"""The audit's HTML report, opened in a real headless browser (Debian's chromium).

CI installs chromium; elsewhere the test is skipped when no browser is found.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from evalgap.audit import audit_counts, audit_scores
from evalgap.report.html import audit_report
from evalgap.scores import align

from test_audit import leaderboard, table_7

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
if BROWSER is None and os.environ.get("CI"):
    raise RuntimeError("CI must install chromium for the report test (.ci/run does)")
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no chromium on this machine")
FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
]


def open_in_browser(path, profile) -> tuple[str, str]:
    out = subprocess.run(
        [BROWSER, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", path.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout, out.stderr


def test_clustered_report_loads_with_its_tables_and_figures(tmp_path):
    frame = leaderboard(cluster_effect=0.6, n_items=2000)
    result = audit_scores(align(frame), n_cluster_bootstrap=200, seed=3)
    path = tmp_path / "audit.html"
    path.write_text(audit_report(result), encoding="utf-8")
    dom, log = open_in_browser(path, tmp_path / "profile")
    assert ":CONSOLE" not in log  # no console message at all, errors included
    for section in ("verdicts", "ties", "flips", "pairs", "binned", "figures", "clusters"):
        assert f'id="{section}"' in dom
    assert len(re.findall(r"<table", dom)) >= 8
    # r bars, efficiency, e-process trajectories, ICC per pair, bootstrap distribution
    assert len(re.findall(r"<svg", dom)) == 5
    assert "Anytime-valid (e-process)" in dom and "Clustered (design effect)" in dom
    # self-contained: nothing on the page is loaded from elsewhere
    assert not re.search(r"""(?:src|href)\s*=\s*["'](?:https?:)?//""", dom)


def test_counts_report_loads(tmp_path):
    path = tmp_path / "counts.html"
    path.write_text(audit_report(audit_counts(table_7())), encoding="utf-8")
    dom, log = open_in_browser(path, tmp_path / "profile")
    assert ":CONSOLE" not in log
    assert dom.count("<svg") == 2 and "rank 5" in dom

"""One sentence per job: the terminal, the HTML page and ``verdict`` in the JSON say it alike.

Each job's sentence is built once (``evalgap.report.sentences``) and the renderers print that
string. Each result is rendered on every output the job has and the sentence is looked up in
each rendering as a string (the terminal capitalises its first letter and may end it with a
full stop).
"""

from __future__ import annotations

import html
import json
import re

import pandas as pd
import pytest

import evalgap
from evalgap.report import html as html_report
from evalgap.report import terminal
from evalgap.report.json_output import to_json

from synthetic import leaderboard


def _compare():
    return evalgap.compare(both_correct=7986, a_only=295, b_only=249, both_wrong=1512)


def _audit():
    table = pd.DataFrame(
        {"model_a": ["x", "y"], "model_b": ["y", "z"], "both_correct": [7986, 7000],
         "a_only": [295, 900], "b_only": [249, 300], "both_wrong": [1512, 1842]}
    )  # fmt: skip
    return evalgap.audit(pairs=table, n_bootstrap=0, n_bootstrap_required_n=0)


def _ranks():
    return evalgap.ranks(leaderboard(), n_bootstrap=200, seed=0)


def _degrade():
    counts = pd.DataFrame({"task": ["gsm8k", "mmlu"], "a_only": [60, 30], "b_only": [25, 28]})
    return evalgap.degrade(counts=counts)


def _plan():
    return evalgap.plan(accuracy_a=0.7, accuracy_b=0.68, correlation=0.5, n_items=1000)


JOBS = {
    "compare": (_compare, terminal.render_compare, None),
    "audit": (_audit, terminal.render_audit, html_report.audit_report),
    "ranks": (_ranks, terminal.render_ranks, html_report.ranks_report),
    "degrade": (_degrade, terminal.render_degrade, None),
    "plan": (_plan, terminal.render_plan, None),
}


def _visible(page: str) -> str:
    """A page's text as a reader sees it: tags dropped, entities decoded, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _says(text: str, sentence: str) -> bool:
    """Whether ``text`` holds ``sentence``, its first letter in either case."""
    text, sentence = " ".join(text.split()), " ".join(sentence.split())
    return any(s in text for s in (sentence, sentence[:1].upper() + sentence[1:]))


def _html_of(job: str, result, page_renderer):
    """The job's HTML page: its renderer here, or the result's own ``to_html`` once it has one."""
    if page_renderer is not None:
        return page_renderer(result)
    to_html = getattr(result, "to_html", None)
    if to_html is None:
        return None
    out = to_html()
    return out if isinstance(out, str) else None


@pytest.mark.parametrize("job", list(JOBS))
def test_the_sentence_is_one_string_on_every_output(job, capsys):
    make, render, page_renderer = JOBS[job]
    result = make()
    sentence = result.verdict
    assert isinstance(sentence, str) and len(sentence) > 40
    assert json.loads(to_json(result))["verdict"] == sentence
    render(result, terminal.make_console())
    printed = capsys.readouterr().out
    assert _says(printed, sentence), f"{job}: the terminal does not print the verdict"
    page = _html_of(job, result, page_renderer)
    if page is None:  # no page for this job (report_html refuses it): terminal and JSON agree
        assert page_renderer is None and not hasattr(result, "to_html")
        return
    assert _says(_visible(page), sentence), f"{job}: the HTML page does not hold the verdict"


def test_the_check_sees_a_sentence_that_differs():
    sentence = "1 of 2 adjacent pairs is unresolved at alpha=0.05"
    assert _says("x\n1 of 2 adjacent\npairs is unresolved at alpha=0.05.", sentence)
    assert _says("1 of 2 adjacent pairs is unresolved at alpha=0.05.", sentence)
    assert not _says("1 of 2 adjacent pairs are unresolved at alpha=0.05", sentence)
    assert not _says("1 of 2 displayed pairs is unresolved at alpha=0.05", sentence)


def test_the_sentences_import_no_job_and_no_rich():
    """Jobs build their verdicts from this module, so it sits below them and stays light."""
    import subprocess
    import sys

    code = (
        "import sys, evalgap.report.sentences; "
        "print(sorted(m for m in sys.modules if m.startswith('evalgap.jobs') or m == 'rich'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_every_verdict_property_reads_the_sentences_module():
    """No job writes its sentence inline: each ``verdict`` calls a builder of the module."""
    import inspect

    from evalgap.jobs import audit as audit_job
    from evalgap.jobs import compare_groups, degrade, plan, ranks
    from evalgap.jobs import compare_pair as compare_job

    classes = [
        compare_job.CompareResult, compare_groups.CompareGroupsResult, audit_job.AuditResult,
        ranks.RanksResult, degrade.DegradeResult, plan.PlanResult, plan.DegradationPlan,
    ]  # fmt: skip
    for cls in classes:
        source = inspect.getsource(cls.verdict.fget)
        assert "evalgap.report.sentences import" in source, cls.__name__
        assert len(source.splitlines()) <= 6, cls.__name__

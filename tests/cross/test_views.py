"""Every result renders itself (issue 38): each job result class names its terminal renderer,
and every result has its Markdown, HTML page, notebook cell and, where a picture helps, its
figure, each drawn from the same numbers and sentence."""

from __future__ import annotations

import html
import importlib
import inspect
import pkgutil
import re

import pytest
from matplotlib.figure import Figure

import evalgap
import evalgap.jobs
from evalgap.jobs._pages import HtmlPage, MarkdownPage, Views


def _result_classes() -> list[type]:
    found = {}
    for module in pkgutil.iter_modules(evalgap.jobs.__path__):
        loaded = importlib.import_module(f"evalgap.jobs.{module.name}")
        for _, cls in inspect.getmembers(loaded, inspect.isclass):
            if issubclass(cls, Views) and cls not in (Views, HtmlPage, MarkdownPage):
                found[cls.__qualname__] = cls
    return sorted(found.values(), key=lambda c: c.__name__)


def test_every_result_class_names_its_renderer_and_heading():
    classes = _result_classes()
    assert len(classes) >= 35
    for cls in classes:
        assert cls._render is not Views._render, f"{cls.__name__} has no terminal renderer"
        assert cls._heading.startswith("evalgap "), cls.__name__
    # every public job's result is one of them
    for job in ("compare", "audit", "ranks", "card", "degrade", "fragility", "estimate"):
        annotation = inspect.signature(getattr(evalgap, job)).return_annotation
        assert any(c.__name__ in str(annotation) for c in classes), job


def _visible(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split()).lower()


RESULTS = {
    "compare": lambda: evalgap.compare(
        "examples/two_models.csv", model_a="model-x", model_b="model-y", n_bootstrap=200
    ),
    "degrade": lambda: evalgap.degrade(
        "examples/board.csv", baseline="model-00", candidate="model-01", n_simulations=200
    ),
    "ranks": lambda: evalgap.ranks("examples/board.csv", n_bootstrap=200),
    "card": lambda: evalgap.card("examples/board.csv", n_bootstrap=200),
    "plan": lambda: evalgap.plan(delta=0.03, flip_rate=0.1),
    "calibration": lambda: evalgap.simulate.calibration(n_trials=20, n_items=100),
}
FIGURES = {"compare", "degrade", "ranks", "card", "calibration"}


@pytest.mark.parametrize("job", sorted(RESULTS))
def test_every_view_says_the_verdict_and_the_figure_is_a_figure(job, tmp_path):
    result = RESULTS[job]()
    said = getattr(result, "verdict", None)
    if said is None:  # a study without a sentence: its table's title
        said = re.sub(r"[*_]", "", result.to_markdown().split("\n")[2])
    sentence = " ".join(said.split()).lower()[:120]
    assert sentence in " ".join(result.to_markdown().split()).lower().replace("\\", "")
    page = result.to_html(tmp_path / "page.html")
    assert page.startswith("<!DOCTYPE html>") and (tmp_path / "page.html").read_text() == page
    assert sentence in _visible(page)
    cell = result._repr_html_()
    assert cell.startswith("<pre") and sentence in _visible(cell)
    if job in FIGURES:
        figure = result.plot()
        assert isinstance(figure, Figure) and figure.axes
    else:
        with pytest.raises(evalgap.InputError, match="has no figure"):
            result.plot()


def test_a_hostile_name_stays_text_in_every_view(tmp_path):
    import pandas as pd

    rows = [("<b>x</b>{code}", i, float(i % 3 == 0)) for i in range(60)]
    rows += [("y", i, float(i % 2 == 0)) for i in range(60)]
    frame = pd.DataFrame(rows, columns=["model", "item", "score"])
    result = evalgap.compare(frame, model_a="<b>x</b>{code}", model_b="y", n_bootstrap=100)
    for text in (result.to_html(title="<i>t</i>{code}"), result._repr_html_()):
        assert "<b>x</b>" not in text and "&lt;b&gt;x&lt;/b&gt;" in text
    assert "<title>&lt;i&gt;t&lt;/i&gt;{code}</title>" in result.to_html(title="<i>t</i>{code}")


def test_ranks_and_card_plot_the_task_asked_for():
    ranks = evalgap.ranks("examples/board.csv", n_bootstrap=200)
    assert "all: rank sets" in ranks.plot("all").axes[0].get_title()
    with pytest.raises(evalgap.InputError, match="not a task"):
        ranks.plot("nope")

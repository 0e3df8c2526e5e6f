"""Regression table: model names that are markup, escape sequences, emoji codes or mathtext.

Each name goes through compare, audit and degrade (terminal) and audit --html. Before the
names were passed through ``report.text``, ``[/bold]`` crashed every command, ``[link=...]``
became a hyperlink (its text vanished from the output), escape bytes reached the terminal,
``:thumbs_up:`` became an emoji, a mathtext ``$`` crashed matplotlib and left a 0-byte HTML
file, and error messages quoting a path printed its escape bytes. Every case here fails on
the code before that change.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import pytest

from evalgap.cli import main
from evalgap.report.text import clean

PLAIN = "plain-model"
HOSTILE = {
    "closing-tag": "[/bold]",
    "hyperlink": "[link=https://evil.example]click[/link]",
    "clear-screen": "esc\x1b[2Jname",
    "window-title": "title\x1b]0;owned\x07name",
    "carriage-return": "real-name\rfake",
    "emoji-code": ":thumbs_up: model",
}
MATHTEXT = r"cost $\frac{1}{0$ model"
RAW_CONTROLS = ("\x1b", "\x07", "\r", "\x9b")


@pytest.fixture(autouse=True)
def no_columns(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)


def scores(tmp_path, names, n_items=200) -> str:
    rng = np.random.default_rng(7)
    latent = rng.normal(size=n_items)
    rows = []
    for k, name in enumerate(names):
        correct = (latent + rng.normal(size=n_items) + 0.3 * k > 0).astype(int)
        rows += [(name, f"q{i}", c) for i, c in enumerate(correct)]
    # JSON lines keep every control character of a name intact (CSV readers treat a
    # carriage return as a line end)
    path = tmp_path / "scores.jsonl"
    pd.DataFrame(rows, columns=["model", "item", "score"]).to_json(
        path, orient="records", lines=True
    )
    return str(path)


def run(capsys, *args) -> tuple[int, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out + out.err


def check_terminal(text: str, name: str) -> None:
    for byte in RAW_CONTROLS:
        assert byte not in text, f"raw {byte!r} reached the terminal"
    assert clean(name) in text  # the name, printed as typed (control characters shown)


COMMANDS = {
    "compare": lambda path, name: [
        "compare",
        "--scores",
        path,
        "--model-a",
        name,
        "--model-b",
        PLAIN,
        "--n-bootstrap",
        "200",
        "--n-bootstrap-required-n",
        "0",
    ],
    "audit": lambda path, name: ["audit", "--scores", path, "--n-bootstrap", "0"],
    "degrade": lambda path, name: [
        "degrade",
        "--scores",
        path,
        "--baseline",
        name,
        "--candidate",
        PLAIN,
    ],
}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("name", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_name_in_the_terminal(tmp_path, capsys, command, name):
    path = scores(tmp_path, [name, PLAIN])
    code, text = run(capsys, *COMMANDS[command](path, name))
    assert code == 0, text
    check_terminal(text, name)


@pytest.mark.parametrize(
    "name",
    [MATHTEXT, HOSTILE["closing-tag"], HOSTILE["clear-screen"]],
    ids=["mathtext", "closing-tag", "clear-screen"],
)
def test_hostile_name_in_the_html_report(tmp_path, capsys, name):
    path = scores(tmp_path, [name, PLAIN, "third-model"])
    report = tmp_path / "audit.html"
    code, text = run(
        capsys,
        "audit",
        "--scores",
        path,
        "--n-bootstrap",
        "0",
        "--n-bootstrap-required-n",
        "0",
        "--html",
        str(report),
    )
    assert code == 0, text
    check_terminal(text, name)
    page = report.read_text(encoding="utf-8")
    assert page.rstrip().endswith("</html>")
    assert html.escape(clean(name)) in page
    assert "\x1b" not in page


def test_error_messages_show_control_characters(tmp_path, capsys):
    path = scores(tmp_path, ["m1", "m2"])
    report = tmp_path / "gone\x1b[2J" / "audit.html"
    code, text = run(capsys, "audit", "--scores", path, "--n-bootstrap", "0", "--html", str(report))
    assert code == 2
    assert "\x1b" not in text and "gone\u241b[2J" in text
    assert "does not exist; create it first" in text


BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
INVISIBLE = BIDI_CONTROLS + "\u200b\u200c\u200d\u2060\ufeff\u00ad\U000e0041\u2028\u2029"


def test_every_invisible_format_character_is_shown_not_obeyed():
    """U+061C (Arabic letter mark) reached the terminal and HTML while the other bidi
    controls were neutralised: the whole class is neutralised, decided by Unicode category
    (every Cf, Cc, Cs, Zl, Zp code point), enumerated here independently."""
    import sys
    import unicodedata

    hidden = [
        chr(c)
        for c in range(sys.maxunicode + 1)
        if unicodedata.category(chr(c)) in ("Cf", "Cs", "Zl", "Zp")
        or (unicodedata.category(chr(c)) == "Cc" and c >= 0x80)
    ]
    assert "\u061c" in hidden and len(hidden) > 2000  # the surrogates alone are 2,048
    text = "".join(hidden)
    assert clean(text) == "\ufffd" * len(hidden)
    assert clean(text, keep_layout=True) == "\ufffd" * len(hidden)
    assert clean("a\u0645\u0631\u062d\u0628\u0627 \u4e2d\u6587 \U0001f44d") == (
        "a\u0645\u0631\u062d\u0628\u0627 \u4e2d\u6587 \U0001f44d"
    )


def test_invisible_characters_reach_neither_terminal_nor_html(tmp_path, capsys):
    import json

    name = "rtl" + INVISIBLE + "name"

    rng = np.random.default_rng(3)
    path = tmp_path / "scores.jsonl"
    with open(path, "w", encoding="ascii") as handle:
        for k, model in enumerate([name, PLAIN, "third-model"]):
            for i in range(150):
                score = int(rng.random() < 0.4 + 0.1 * k)
                handle.write(json.dumps({"model": model, "item": f"q{i}", "score": score}) + "\n")
    report = tmp_path / "audit.html"
    code, text = run(
        capsys, "audit", "--scores", str(path), "--n-bootstrap", "0",
        "--n-bootstrap-required-n", "0", "--html", str(report),
    )  # fmt: skip
    assert code == 0, text
    page = report.read_text(encoding="utf-8")
    for char in INVISIBLE:
        assert char not in text, f"raw U+{ord(char):04X} reached the terminal"
        assert char not in page, f"raw U+{ord(char):04X} reached the HTML report"
    assert clean(name) in text and html.escape(clean(name)) in page


def test_compare_by_group_shows_control_characters_not_obeys_them(tmp_path, capsys):
    """compare --by printed its verdict with markup off but control characters raw."""
    import json

    name = "m\x1b[2J\u202e\u061c\x07"
    path = scores(tmp_path, [name, PLAIN])
    rows = [json.loads(line) for line in open(path, encoding="utf-8")]
    with open(path, "w", encoding="utf-8") as handle:
        for k, row in enumerate(rows):
            handle.write(json.dumps({**row, "task": "t\u202e" + str(k % 2)}) + "\n")
    code, text = run(
        capsys, "compare", "--scores", path, "--model-a", name, "--model-b", PLAIN,
        "--by", "task", "--n-bootstrap", "0",
    )  # fmt: skip
    assert code == 0, text
    for char in "\x1b\x07\u202e\u061c":
        assert char not in text
    assert clean(name) in text

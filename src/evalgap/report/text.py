"""Text shared by every renderer: user strings made safe to print, numbers, plurals.

Names of models, tasks, items and files come from user files and are printed on terminals
(Rich markup), in HTML and in plot labels. Each renderer passes them through one function
here, so no name can inject markup, escape sequences or mathtext.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections.abc import Iterable
from typing import SupportsFloat

# C0 controls and DEL as their Unicode "control pictures" (ESC -> U+241B), so a reader
# sees that the name holds a control character. Every other code point that is invisible
# and changes what a terminal or browser shows becomes U+FFFD, decided by its Unicode
# category, so no member of a class is forgotten: C1 controls (Cc), the format characters
# (Cf: every bidi control - U+061C, U+200E/F, U+202A-E, U+2066-9 - zero-width spaces and
# joiners, soft hyphen, BOM, tag characters), line and paragraph separators (Zl, Zp), and
# lone surrogates (Cs, which a UTF-8 terminal or file cannot even encode).
_C0 = {code: chr(0x2400 + code) for code in range(0x20)}
_C0[0x7F] = "\u2421"
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


class _Visible(dict[int, int | str]):
    """A ``str.translate`` table decided per code point on first sight, then cached."""

    def __missing__(self, code: int) -> int | str:
        value = "\ufffd" if unicodedata.category(chr(code)) in _HIDDEN else code
        self[code] = value
        return value


_TABLE = _Visible(_C0)
_KEEP_LAYOUT = _Visible({**_C0, ord("\n"): ord("\n"), ord("\t"): ord("\t")})


def clean(value: object, *, keep_layout: bool = False) -> str:
    """Return ``str(value)`` with every control character replaced by a visible placeholder.

    ``keep_layout`` keeps newlines and tabs (for multi-line messages); a name never needs them.
    """
    return str(value).translate(_KEEP_LAYOUT if keep_layout else _TABLE)


def markup(value: object, *, keep_layout: bool = False) -> str:
    """Return a user string ready for Rich: control characters shown, markup escaped.

    Use it for every name, note or path placed in text that Rich parses as markup
    (``console.print`` and table cells).
    """
    from rich.markup import escape  # here, so the sentences the jobs build load no rich

    # rich's escape leaves a trailing backslash, which would escape the closing tag that
    # follows it in a template ("[dim]{name}[/]"); double it so it prints as itself.
    text = escape(clean(value, keep_layout=keep_layout))
    return text + "\\" if text.endswith("\\") and not text.endswith("\\\\") else text


# Reports show at most this many characters of a name (the JSON keeps it whole): a name of
# 200,000 characters would otherwise fill screens, and every width fit costs its length.
MAX_DISPLAY_NAME = 80


def display_name(value: object, limit: int = MAX_DISPLAY_NAME) -> str:
    """Return a name (control characters shown) cut to ``limit`` characters for display.

    A longer name keeps its head and tail around an ellipsis, then a short digest of the
    whole name so two long names that differ only in the middle stay apart:
    ``"aaaa…zzzz #3fa2c1"``. Linear in the name's length.
    """
    text = clean(value)
    if len(text) <= limit:
        return text
    digest = hashlib.sha1(str(value).encode("utf-8", "surrogatepass")).hexdigest()[:6]
    room = limit - len(digest) - 3  # the ellipsis, a space and '#'
    head = (room + 1) // 2
    return f"{text[:head]}\u2026{text[len(text) - (room - head):]} #{digest}"


def is_long_name(value: object, limit: int = MAX_DISPLAY_NAME) -> bool:
    """True when :func:`display_name` shortens ``value``."""
    return len(str(value)) > limit


def plot_label(value: object) -> str:
    """Return a name for a matplotlib label: control characters shown, shortened as
    :func:`display_name` (a label of thousands of characters costs seconds to lay out).

    ``plots`` draws every figure with mathtext off, so a ``$`` stays a dollar sign.
    """
    return display_name(value)


# The column of a model's mean over its own items, shown beside the board score where models
# lack items (the score then charges the missing items' difficulty; stats.board)
OWN_ITEMS_MEAN = "Own-items mean"


def shows_own_items_mean(score: Iterable[float], own: Iterable[float]) -> bool:
    """Whether a board's own-items means differ from its scores (some model lacks items)."""
    return any(a != b for a, b in zip(score, own, strict=True))


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """Return ``"1 task"``, ``"2 tasks"``, ``"1,032 items"``."""
    word = noun if count == 1 else (plural_form or noun + "s")
    return f"{count:,} {word}"


def number(value: SupportsFloat | None, spec: str = ".4g") -> str:
    """Format a float by ``spec``; never ``-0``/``-0.0``, NaN as an em dash, inf spelt out."""
    if value is None:
        return "\u2014"
    value = float(value)
    if math.isnan(value):
        return "\u2014"
    if math.isinf(value):
        return "infinite" if value > 0 else "-infinite"
    text = format(value, spec)
    return _drop_negative_zero(text)


def _drop_negative_zero(text: str) -> str:
    # "-0", "-0.00", "+0.0%", "-0.00e+00": a value that rounds to zero has no sign.
    if text[:1] in "+-" and not re.search(r"[1-9]", text.split("e")[0]):
        return text[1:]
    return text


def format_p(
    p: SupportsFloat | None, floor: float = 0.0, *, digits: int = 2, bare: bool = False
) -> str:
    """Return a p-value as text: ``p=0.049``, ``p=0.31``, ``p=2.1e-05``, ``p<1e-15``.

    The one p-value formatter of every report. ``digits`` significant digits (2 in compare's
    sentences, 3 in degrade's); ``floor`` is the resolution of a resampling p-value (1/B):
    below it the text is ``p<floor``. ``bare`` leaves out the ``p=`` (table cells). A
    missing or non-finite p-value is ``n/a``.
    """
    if p is None or not math.isfinite(float(p)):
        return "n/a"
    p = float(p)
    if floor and p < floor:
        text = f"p<{floor:.0e}" if floor < 0.001 else f"p<{floor:g}"
    elif p < 1e-15:
        text = "p<1e-15"
    elif p >= 0.001:
        text = f"p={p:.{digits}g}" if p < 0.1 else f"p={p:.{digits}f}"
    else:
        text = f"p={p:.{digits - 1}e}"
    return text.removeprefix("p=").removeprefix("p") if bare else text


def format_n(n: SupportsFloat | None, *, infinite: str = "infinite") -> str:
    """Return a required number of items (N*) rounded up, ``20,256``; ``infinite`` when none.

    The one N* formatter: None (no finite N*, a zero gap) and non-finite values give the
    word ``infinite`` (or the one asked for: "infinity", "infinitely many" in sentences).
    """
    if n is None or not math.isfinite(float(n)):
        return infinite
    return f"{math.ceil(float(n)):,}"


# --- one formatter per kind of number ------------------------------------------------------
# Every report (terminal, Markdown, HTML, sentences) turns a number into text through one of
# these, so the same value reads the same everywhere. The JSON output keeps the raw numbers.

SCORE_SPEC = ".4f"  # a score on its own scale (mean accuracy, Bradley-Terry strength)
GAP_SPEC = "+.4f"  # a gap (delta) on the scale of the scores, always signed
POINTS_SPEC = "+.2f"  # a gap in percentage points (100 x delta), always signed


def _interval(low: SupportsFloat | None, high: SupportsFloat | None, spec: str) -> str:
    # the one bracket style of every interval: "[low, high]"; a dash when an end is missing
    if low is None or high is None:
        return "\u2014"
    try:
        if not math.isfinite(float(low) + float(high)):
            return "\u2014"
    except (TypeError, ValueError):
        return "\u2014"
    return f"[{number(low, spec)}, {number(high, spec)}]"


def format_score(value: SupportsFloat | None) -> str:
    """Return a score (or a standard error on its scale): ``0.6943``, four decimals."""
    return number(value, SCORE_SPEC)


def score_interval(low: SupportsFloat | None, high: SupportsFloat | None) -> str:
    """Return a score's interval: ``[0.6943, 0.7107]``; a dash when either end is missing."""
    return _interval(low, high, SCORE_SPEC)


def format_gap(value: SupportsFloat | None, *, signed: bool = True) -> str:
    """Return a gap (delta) on the scale of the scores, signed: ``+0.0123``, ``-0.0040``.

    ``signed=False`` for a size that has no direction (an MDE, ``|delta|``): ``0.0123``.
    """
    return number(value, GAP_SPEC if signed else GAP_SPEC[1:])


def gap_interval(low: SupportsFloat | None, high: SupportsFloat | None) -> str:
    """Return a gap's interval on the scale of delta: ``[-0.0123, +0.0456]``; a dash when
    either end is missing."""
    return _interval(low, high, GAP_SPEC)


def format_points(delta: SupportsFloat | None, *, signed: bool = True) -> str:
    """Return a gap in percentage points (``100 * delta``), signed: ``+6.15``; ``signed=False``
    for a size (``6.15``)."""
    spec = POINTS_SPEC if signed else POINTS_SPEC[1:]
    return number(None if delta is None else 100 * float(delta), spec)


def points_interval(low: SupportsFloat | None, high: SupportsFloat | None) -> str:
    """Return a gap's interval in percentage points: ``[+4.87, +7.43]`` (ends given as
    deltas, not yet multiplied by 100)."""
    if low is None or high is None:
        return "\u2014"
    return _interval(100 * float(low), 100 * float(high), POINTS_SPEC)


def format_count(count: SupportsFloat | None) -> str:
    """Return a count of items, rows, pairs or draws: ``1,032``; a dash when missing."""
    return number(count, ",.0f")


def format_percent(share: SupportsFloat | None, digits: int = 1) -> str:
    """Return a share or a rate (0 to 1) as a percentage: ``12.3%``; a dash when missing."""
    if share is None or not math.isfinite(float(share)):
        return "\u2014"
    return number(100 * float(share), f".{digits}f") + "%"


def format_statistic(value: SupportsFloat | None) -> str:
    """Return a statistic of no kind above (a correlation, an ICC, a design effect): four
    significant digits, ``1,234`` from a thousand up, ``1.23e-05`` below a thousandth."""
    if value is None or not math.isfinite(float(value)):
        return number(value)
    size = abs(float(value))
    if size >= 1000:
        return number(value, ",.0f")
    return number(value, ".2e" if 0 < size < 1e-3 else ".4g")


def format_level(alpha: float) -> str:
    """Return the confidence level of ``alpha``: ``95%``."""
    return f"{100 * (1 - alpha):g}%"


def pairs_noun(family: str, count: int) -> str:
    """Return an audit's pairs by family: ``28 adjacent pairs``, ``all 406 pairs``."""
    if family == "all":
        return f"all {count:,} pairs" if count != 1 else "1 pair (all pairs)"
    noun = {"adjacent": "adjacent pair", "listed": "listed pair"}.get(family, "pair")
    return plural(count, noun)


def format_q(q: SupportsFloat | None) -> str:
    """Return a resolution ratio q: two decimals below 10, whole numbers above; a dash when
    there is none (no gap to resolve)."""
    if q is None or math.isnan(float(q)):
        return "\u2014"
    return number(q, ".2f" if float(q) < 10 else ",.0f")

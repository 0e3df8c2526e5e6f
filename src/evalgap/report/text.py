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


def gap_interval(low: SupportsFloat | None, high: SupportsFloat | None) -> str:
    """Return a gap's interval on the scale of delta: ``[-0.0123, +0.0456]``; a dash when
    either end is missing."""
    if low is None or high is None or not math.isfinite(float(low) + float(high)):
        return "\u2014"
    return f"[{number(low, '+.4f')}, {number(high, '+.4f')}]"


def pairs_noun(family: str, count: int) -> str:
    """Return an audit's pairs by family: ``28 adjacent pairs``, ``all 406 pairs``."""
    if family == "all":
        return f"all {count:,} pairs" if count != 1 else "1 pair (all pairs)"
    noun = {"adjacent": "adjacent pair", "listed": "listed pair"}.get(family, "pair")
    return plural(count, noun)


def format_q(q: float) -> str:
    """Return a resolution ratio q: two decimals below 10, whole numbers above."""
    return f"{q:.2f}" if q < 10 else f"{q:,.0f}"

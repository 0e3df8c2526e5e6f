"""One vocabulary on the command line: a flag has one meaning and one type in every command.

The walk covers every command's click parameters: a flag's Python name (its plural when it
repeats), its kind of value (switch, integer, number, choice, file read, file written, text),
its arity and its choices must agree wherever it appears. A replicate count is spelled
``--n-<what>`` like its keyword ``n_<what>``, and a simulation study's is ``--n-trials``.
Flags renamed in this release still read their old spelling (a line on stderr) unless it would
be ambiguous, in which case it is refused with a line naming the new flag.
"""

from __future__ import annotations

import collections
import re
import warnings

import click
import pytest

from evalgap import simulate
from evalgap.cli import cli
from evalgap.cli._main import main
from evalgap.errors import InputError

# A flag whose Python name is not the flag's own (nor its plural), and why.
KEYWORD_OF = {
    "--format": "fmt",  # `format` is a builtin
    "--filter": "filter_name",  # `filter` is a builtin
    "--next": "next_count",  # `next` is a builtin
    "--models": "model_columns",  # the LoadOptions field; jobs take models= (the board's route)
}
# Keywords that two flags name, with the reason they are kept apart.
SHARED_KEYWORDS = {
    # audit/fragility --pairs FILE (2x2 counts per pair) and simulate prospective --pair A B
    # (repeatable): both land in pairs=; the file's keyword changes with the audit's inputs.
    "pairs",
}
# Every replicate count, by its one spelling.
REPLICATE_COUNTS = {
    "--n-trials": "replicates of a simulation study (every `evalgap simulate` study)",
    "--n-bootstrap": "bootstrap resamples of the command's bootstrap",
    "--n-bootstrap-required-n": "bootstrap resamples of the N* interval",
    "--n-rank-bootstrap": "bootstrap replicates of the rank sets (audit)",
    "--n-cluster-bootstrap": "cluster-bootstrap resamples (audit)",
    "--n-permutations": "sign-flip permutations (degrade)",
    "--n-simulations": "Monte Carlo draws of a test's null (degrade's max-drop)",
}
# Words that make a flag a replicate count: it must then be one of REPLICATE_COUNTS.
COUNT_WORDS = re.compile(
    r"(trials?|simulations?|experiments?|draws?|replicates?|resamples?|permutations?|"
    r"bootstrap)$"
)


def commands(group: click.Group = cli, path: tuple[str, ...] = ()):
    """Every command under ``group``, with its path."""
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))
        else:
            yield " ".join((*path, name)), command


def options(command: click.Command):
    return [p for p in command.params if isinstance(p, click.Option)]


def kind(param: click.Option) -> str:
    """What a flag takes, in a word."""
    if param.is_flag:
        return "switch"
    t = param.type
    if isinstance(t, click.Path):
        return "file written" if getattr(t, "writes", False) else "path read"
    if isinstance(t, click.Choice):
        return "choice of " + ",".join(map(str, t.choices))
    if isinstance(t, (click.types.IntParamType, click.IntRange)):
        return "integer"
    if isinstance(t, (click.types.FloatParamType, click.FloatRange)):
        return "number"
    return t.name


def meaning(flag: str, param: click.Option) -> tuple[str, str, int]:
    """(keyword, kind, arity): the same in every command that takes ``flag``."""
    name = param.name or ""
    if param.multiple and name.endswith("s") and not flag.endswith("s"):
        name = name[:-1]  # --task is tasks=: one task per use
    return name, kind(param), param.nargs


def long_flags(param: click.Option) -> list[str]:
    return [o for o in (*param.opts, *param.secondary_opts) if o.startswith("--")]


def test_every_flag_has_one_meaning_and_one_type():
    seen: dict[str, dict[tuple, list[str]]] = collections.defaultdict(
        lambda: collections.defaultdict(list)
    )
    for path, command in commands():
        for param in options(command):
            for flag in long_flags(param):
                seen[flag][meaning(flag, param)].append(path)
    assert len(seen) > 100  # the walk reached every command's flags
    clashes = {flag: dict(found) for flag, found in seen.items() if len(found) > 1}
    assert not clashes, f"a flag with two meanings or types: {clashes}"


def test_a_flag_names_its_keyword():
    keywords: dict[str, set[str]] = collections.defaultdict(set)
    for _, command in commands():
        for param in options(command):
            for flag in long_flags(param):
                name = param.name or ""
                keywords[name].add(flag)
                own = flag[2:].replace("-", "_")
                assert name in (own, own + "s") or KEYWORD_OF.get(flag) == name, (flag, name)
    two = {k: v for k, v in keywords.items() if len(v) > 1 and k not in SHARED_KEYWORDS}
    assert not two, f"one keyword under two flags: {two}"


def test_every_replicate_count_is_spelled_one_way():
    for path, command in commands():
        for param in options(command):
            for flag in long_flags(param):
                if flag in REPLICATE_COUNTS:
                    assert (param.name or "") == flag[2:].replace("-", "_"), (path, flag)
                    assert kind(param) == "integer", (path, flag)
                elif kind(param) == "integer":
                    assert not COUNT_WORDS.search(flag), (
                        f"{path} {flag}: a replicate count is one of {sorted(REPLICATE_COUNTS)}"
                    )
    studies = dict(commands(cli.commands["simulate"], ("simulate",)))  # type: ignore[arg-type]
    for path, command in studies.items():
        flags = {f for p in options(command) for f in long_flags(p)}
        assert "--n-trials" in flags, f"{path}: a study's replicates are --n-trials"


def test_differing_defaults_say_why():
    """Where a flag's default is not the one most commands have, its help says why."""
    for flag in ("--n-bootstrap", "--seed"):
        found = [
            (path, p)
            for path, command in commands()
            for p in options(command)
            if flag in p.opts and not path.startswith("simulate")
        ]
        usual = collections.Counter(repr(p.default) for _, p in found).most_common(1)[0][0]
        for path, p in found:
            if repr(p.default) != usual:
                why = p.help or ""
                assert re.search(r"default|compare's|audit's|ranks'|fewer|more than", why, re.I), (
                    path,
                    flag,
                    why,
                )


# (command, old spelling and its value, new spelling) for every flag renamed in this release
RENAMED = [
    (["simulate", "monitoring"], ["--models", "3"], "--n-models"),
    (["simulate", "monitoring"], ["--trials", "10"], "--n-trials"),
    (["simulate", "aggregation"], ["--experiments", "10"], "--n-trials"),
    (["simulate", "rank-coverage"], ["--simulations", "10"], "--n-trials"),
    (["simulate", "estimate"], ["--draws", "1"], "--n-trials"),
    (["simulate", "estimate"], ["--strata", "4"], "--n-strata"),
    (["simulate", "estimate"], ["--adaptive", "5"], "--adaptive-batch"),
    (["degrade"], ["--simulations", "50"], "--n-simulations"),
    (["store", "remove"], ["--path", "a.csv"], "--source-path"),
]


def command_at(path: list[str]) -> click.Command:
    command: click.Command = cli
    for name in path:
        assert isinstance(command, click.Group)
        command = command.commands[name]
    return command


@pytest.mark.parametrize(("path", "old", "new"), RENAMED, ids=lambda x: " ".join(x))
def test_an_old_spelling_is_read_with_a_warning_and_hidden(path, old, new, capsys):
    command = command_at(path)
    assert getattr(command, "renamed_flags", {}).get(old[0]) == new
    flags = {f for p in options(command) for f in long_flags(p)}
    assert new in flags and old[0] not in flags
    assert main([*path, "--help"]) == 0
    text = capsys.readouterr().out
    assert new in text and not re.search(re.escape(old[0]) + r"\b(?!-)", text)
    # read as the new flag: the command parses it to the new keyword, and says so on stderr
    store = ["board.duckdb"] if path[0] == "store" else []  # the STORE argument
    ctx = command.make_context(path[-1], [*store, *old])
    param = next(p for p in options(command) if new in p.opts)
    value = ctx.params[param.name or ""]
    assert value == param.type_cast_value(ctx, [old[1]] if param.multiple else old[1])
    err = capsys.readouterr().err
    assert err.strip() == (
        f"evalgap: warning: {old[0]} is now {new}; the old spelling will be removed in a later "
        "release"
    )


def test_an_ambiguous_old_spelling_is_refused_naming_the_new_flag(capsys):
    counts = ["--both-correct", "5", "--a-only", "5", "--b-only", "3", "--both-wrong", "4"]
    assert main(["simulate", "sequential", *counts, "--horizon", "5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("evalgap: error: --horizon is no longer")
    assert "give --horizon-factor" in err


def test_a_renamed_keyword_warns_and_both_spellings_are_refused():
    with pytest.warns(DeprecationWarning, match="n_simulations= is now called n_trials="):
        with pytest.raises(InputError, match="n_trials=10000000000 is more than"):
            simulate.rank_coverage(n_simulations=10**10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(InputError, match="n_simulations= is the old name of n_trials="):
            simulate.rank_coverage(n_simulations=10, n_trials=10)
    for old, new in (("strata", "n_strata"), ("adaptive", "adaptive_batch")):
        with pytest.warns(DeprecationWarning, match=f"{old}= is now called {new}="):
            with pytest.raises(InputError, match=new):
                simulate.estimate_study(None, **{old: -1})

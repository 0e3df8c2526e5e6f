"""evalgap configurations: is it the model or the configuration (seed, provider) it ran under?"""

from __future__ import annotations

from typing import Any

import click

from evalgap.cli._command import command
from evalgap.cli._load import inputs, score_keywords
from evalgap.cli._options import SCORE_SOURCES, loader_options, option
from evalgap.cli._render import emit, working, write_html, write_markdown

CONFIGURATIONS_EXAMPLES = """
\b
Examples:
  # inspect_ai logs of two models under 2 providers (a model argument) x 2 seeds:
  evalgap configurations --scores examples/configurations/logs \\
      --config-columns model_args.provider,seed \\
      --model-a mockllm/wide --model-b mockllm/narrow
\b
  # One model's score over seeds and providers of a long table, as JSON:
  evalgap configurations --scores runs.csv --config-columns seed,provider \\
      --model gpt-x --json
\b
  # The report as a self-contained HTML page and as Markdown:
  evalgap configurations --scores runs.csv --config-columns seed --model gpt-x \\
      --html report.html --markdown report.md
"""


# compare's and degrade's flag: the configuration (--config-columns) a random or fixed factor
configurations_option = click.option(
    "--configurations",
    type=click.Choice(["random", "fixed"]),
    help="With --config-columns: 'random' makes the gap the one over configurations like "
    "these (the model x configuration component in its SE); 'fixed' keeps the gap over "
    "these configurations (runs averaged per item, the default without the flag). Either "
    "adds the variance components and the configuration tests.",
)


@command(epilog=CONFIGURATIONS_EXAMPLES + SCORE_SOURCES)
# no clusters nor a model selection: the decomposition is of the one model or pair named
@loader_options(exclude=("strict", "complete_case", "cluster_column", "model_columns"))
@click.option("--model", help="One model: the components of its score.")
@click.option("--model-a", help="Model A of a pair: the components of the gap A - B.")
@click.option("--model-b", help="Model B of a pair.")
@click.option(
    "--confidence",
    type=click.FloatRange(min=0, max=1, min_open=True, max_open=True),
    default=0.95,
    show_default=True,
    help="Level of the components' and the mean's intervals.",
)
@option("html")
@option("markdown")
@option("json")
def configurations(json: bool, html: str | None, markdown: str | None, **given: Any) -> None:
    """Is it the model or the configuration it was run under? (seed, provider, harness...)

    The variance of one model's score, or of a pair's gap, split into item, configuration,
    item x configuration and residual components, each with an interval and its share; the
    configuration effect (for a gap, the model x configuration interaction) and the item x
    configuration tests; the mean with the configurations a random factor (a claim about
    configurations like these) and fixed (about these only); errored and empty samples per
    configuration, tested for association with it. Name the configuration with
    --config-columns.
    """
    from evalgap.jobs.configurations import configurations as configurations_job

    sources = inputs(given)
    source = score_keywords(given)
    with working(json, "reading scores", by_bytes=True):
        result = configurations_job(**source, **given)
    if html:
        write_html(result, html, sources, quiet=json)
    write_markdown(result, markdown, quiet=json)
    emit(result, json)

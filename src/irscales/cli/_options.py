"""The options the ``irscales`` subcommands share (:mod:`irscales.cli`): run files, qrels, run
length, output format, how TREC files are read and how scales are built."""

from __future__ import annotations

import click

from irscales import measures as M
from irscales.data._judged import JUDGED_CONVENTION
# a scale build estimated above either limit needs --build-scales (FFF21's N = 30 takes minutes and GBs); the
# enumeration layer's planner applies the budget, so the API (build=True) and the CLI refuse alike; the help's
# constants come from irscales.options, so --help loads neither the engine nor pandas (issue 49)
from irscales.options import (BUILD_BYTES_OK, BUILD_SECONDS_OK, COMPARISON_DEFAULTS, CORRECTIONS,
                              DEFAULT_JUDGED_THRESHOLD, DEFAULT_MAX_REL_ERROR, DEFAULT_MEASURES, DEFAULT_TIES,
                              DEPTH_RULE, EXACT_FLIPS_UP_TO, LETTERS_UP_TO, MAX_REL_ERROR_HELP, MAX_REL_ERROR_RULE,
                              METRIC_TESTS, PAIRED_TESTS, PERMUTATIONS, READING, ROW_ORDERS, TIES, ArgumentError,
                              check_alpha)

__all__ = ["FORMATS", "BUILD_SECONDS_OK", "BUILD_BYTES_OK", "TREC_EVAL_RECIPE", "MEASURE_HELP", "DEPTH_RULE",
           "runs_argument", "qrels_option", "format_option", "output_option", "depth_option", "measures_option",
           "measures_given", "reading_options", "reading", "scale_options", "ties_option", "judged_option",
           "JUDGED_HELP", "report_options", "ipso_test_option", "ALPHA"]

FORMATS = ("table", "csv", "tsv", "markdown", "latex")

TREC_EVAL_RECIPE = ("--negative zero --on-no-relevant keep, --depth at least the "
                    "longest run, trec_eval names (map, P_10, ndcg_cut_10, recip_rank …); add "
                    "--on-uneven-topics pad for trec_eval -c")

MEASURE_HELP = (  # {keys}: one paper key per registered measure (irscales.measures.REGISTRY), read when shown
    "comma-separated measures. Paper keys: {keys} P@10 nDCG_b10 …; "
    "constructor forms: RBP(p=0.8), NDCG(discount='log2p1', gains='graded'), ERR(max_grade=3); ERR alone takes "
    "the qrels' largest grade G, R = (2^g - 1)/2^G (gdeval and ir_measures use ERR(max_grade=4)). "
    "Exact synonyms: trec_eval map P_10 map_cut_10 ndcg ndcg_cut_10 recall_10 recip_rank Rprec success_5; "
    "ir_measures AP@10 nDCG@10 RR@10 R@10 P@10 RBP(rel=1,p=0.8). A name with a cut-off (P@10, nDCG@20, "
    "ndcg_cut_20) is taken at that N, the others at --depth, and the output names each with its N (AP at "
    "--depth 10 is AP@10). nDCG_b02 is FFF21's binary nDCG with the Järvelin–Kekäläinen discount, NOT "
    "trec_eval's ndcg (graded gains, 1/log2(i+1)); AP is trec_eval's map_cut_<depth> (full recall base), = map when --depth covers "
    "the runs. map, ndcg, nDCG, recip_rank, Rprec mean the whole run and need such a --depth.")

runs_argument = click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True))
qrels_option = click.option("--qrels", required=True, type=click.Path(exists=True, dir_okay=False),
                            help="qrels file (topic iter docno grade)")
format_option = click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
                             help="table (with its legend), csv / tsv (data only; the legend goes to stderr), "
                             "markdown or latex (legend under the table / as the caption)")
output_option = click.option("--output", "-o", type=click.Path(dir_okay=False),
                             help="write to this file instead of stdout (never one of the inputs)")


def depth_option(ranked: bool = False):
    """``--depth`` (run length N), default None: :data:`DEPTH_RULE`. ``ranked`` adds what the interval
    versions allow."""
    extra = (" Interval versions of P, R, RR, RBP and (n)DCG are counted without a scale (RBP_p08: N <= 52, "
             "DCG_b02: N <= 54; at N = 50 on a TREC-sized run set, 129 runs x 50 topics: RBP_p08 about 20 s "
             "and 2.7 GB, DCG_b02 about 50 s and 5.5 GB, nDCG_b02 with it at no extra cost; P, RR, RBP with "
             "p <= 0.5: any N); the others need a scale over all 2^N runs (N <= 40), and a build over the "
             "budget is refused with its estimate and the cheaper options unless --build-scales. Beyond the "
             "exact routes phi is bracketed within --max-rel-error (RBP, (n)DCG to N = 1020, AP with --ties "
             "min/max/mid within 1 % to N = 270, deeper within the wider error asked, e.g. 1.0 at N = 1000).") \
        if ranked else ""
    return click.option("--depth", default=None, type=click.IntRange(1, None),
                        help=f"run length N: runs are cut at N, shorter runs padded (FFF21 §5.1); {DEPTH_RULE}."
                        + extra)


class _MeasuresOption(click.Option):
    """``--measures``, whose help lists the measures registered when it is shown (a measure declared in a module
    imported before the command runs is listed)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.template = self.help or ""

    def get_help_record(self, ctx):
        self.help = self.template.replace("{keys}", " ".join(M.measure_names()))
        return super().get_help_record(ctx)


def measures_option(default: str | None, one: bool = False):
    """``--measures`` (one vocabulary for every subcommand); ``--measure`` and ``--metric`` stay as hidden
    aliases of older versions. ``one``: the command takes exactly one measure."""
    what = "one measure (see irscales scores --help)" if one else MEASURE_HELP
    return _options(
        click.option("--measures", "measure_names", cls=_MeasuresOption, default=default,
                     show_default=default is not None, help=what),
        click.option("--measure", "measure_alias", hidden=True),
        click.option("--metric", "metric_alias", hidden=True),
    )


def measures_given(kw: dict, one: bool = False) -> str:
    """The measures a command was given (``--measures`` or a hidden alias, popped from ``kw``), read here by
    :func:`irscales.evaluation.measure_specs` so that a bad one is a usage error (exit 2), before any work.
    ``one``: the command takes exactly one measure."""
    from irscales.evaluation import measure_specs  # the one reader of measure lists, with the command's API

    ctx = click.get_current_context()
    names, alias, metric = kw.pop("measure_names"), kw.pop("measure_alias"), kw.pop("metric_alias")
    given = [x for x in (alias, metric) if x is not None]
    default = next(p.default for p in ctx.command.params if p.name == "measure_names")
    if given and names not in (None, default):
        raise click.BadParameter("give the measures once, with --measures", param_hint="'--measures'")
    out = given[0] if given else names
    if out is None or not out.replace(",", "").strip():
        raise click.BadParameter(f"no measure given (e.g. --measures {DEFAULT_MEASURES})", param_hint="'--measures'")
    try:
        labels = [lab for lab, _ in measure_specs(out)]
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--measures'") from None
    if one and len(labels) != 1:
        raise click.BadParameter(f"{ctx.info_name} takes one measure; got {len(labels)}: {', '.join(labels)}",
                                 param_hint="'--measures'")
    return out


class _Spelled(float):
    """A number that prints as it was typed: a refusal quotes the user's spelling (``got 0``, not ``got 0.0``)."""

    def __new__(cls, text: str):
        x = super().__new__(cls, text)
        x.text = text
        return x

    def __repr__(self) -> str:
        return self.text


class _Number(click.ParamType):
    """A number, read as typed; ``rule`` (one of :mod:`irscales.options`' checks) refuses it naming the rule, else
    it is checked with the other settings (:class:`irscales.options.Settings`)."""

    name = "float"

    def __init__(self, rule=None):
        self.rule = rule

    def convert(self, value, param, ctx):
        if not isinstance(value, float):
            try:
                value = _Spelled(str(value))
            except ValueError:
                self.fail(f"{value!r} is not a number", param, ctx)
        if self.rule is not None:
            try:
                self.rule(value)
            except ArgumentError as e:
                self.fail(e.detail, param, ctx)
        return value


#: The type of every ``--alpha``: a significance level in (0, 1) (:func:`irscales.options.check_alpha`).
ALPHA = _Number(check_alpha)


def _options(*opts):
    """One decorator applying ``opts`` as if stacked in this order above a command."""
    def apply(fn):
        for o in reversed(opts):
            fn = o(fn)
        return fn
    return apply


# how TREC files are read: one flag per option of irscales.options.READING (names, values, defaults, help)
reading_options = _options(*(
    click.option(o.flag, o.name, type=click.Choice(list(o.choices)), default=o.default, show_default=True,
                 help=o.help) for o in READING))


def reading(kw: dict) -> dict:
    """The reading options, popped from a command's keyword arguments (for Collection.from_trec)."""
    return {o.name: kw.pop(o.name) for o in READING}


scale_options = _options(
    click.option("--build-scales", is_flag=True,
                 help=f"build scales whose estimated cost is above {BUILD_SECONDS_OK:.0f} s or "
                 f"{BUILD_BYTES_OK / 1e6:.0f} MB (the estimate and the cache folder are printed first)"),
    click.option("--cache/--no-cache", default=True, show_default=True,
                 help="keep built scales under IRSCALES_CACHE"),
    click.option("--progress/--no-progress", default=True, show_default=True,
                 help="progress bars on stderr when it is a terminal (reading runs, counting phi, scale builds)"),
)

#: The options of the interval values: the tie rule of φ and the relative error of a bracketed φ.
ties_option = _options(click.option(
    "--ties", type=click.Choice(TIES), default=DEFAULT_TIES, show_default=True,
    help="rank of a value taken by several runs (FFF21 eq. 2 and §7.1.3): unq = rank among the distinct "
    "values; min/max = 1 + runs below / runs up to it; mid = their average. Counting reaches further for "
    "some: AP's φ is counted to N = 24 for unq, to N = 40 for min/max/mid"), click.option(
    "--max-rel-error", type=_Number(), default=DEFAULT_MAX_REL_ERROR, show_default=True,
    help=f"{MAX_REL_ERROR_HELP} ({MAX_REL_ERROR_RULE}; checked with the other settings, before any file is read)"))

#: What judged@N is, in every legend and --help that reports it (irscales.data._judged).
JUDGED_HELP = ("judged@N: the fraction of a system's top N documents that appear in the topic's qrels (any grade), "
               f"mean over topics ({JUDGED_CONVENTION})")

judged_option = click.option(
    "--judged-threshold", type=_Number(), default=DEFAULT_JUDGED_THRESHOLD, show_default=True,
    help=f"warn (one line on stderr naming the systems) when a system's judged@N is below this fraction: its "
    f"unjudged documents count as not relevant, so its scores are lower bounds; 0: never. {JUDGED_HELP}")


def _test_option(tests):
    """``--test``: one of ``tests`` (:data:`irscales.options.PAIRED_TESTS`) by name, each named in the help."""
    return click.option("--test", type=click.Choice([t.name for t in tests]), default=COMPARISON_DEFAULTS["test"],
                        show_default=True, help="; ".join(f"{t.name}: {t.words}" for t in tests))


#: ``irscales ipso --test``: MM23's metric tests (:data:`irscales.options.METRIC_TESTS`).
ipso_test_option = _test_option([t for t in PAIRED_TESTS if t.key in METRIC_TESTS])

#: The options of ``irscales report`` beyond the shared ones: the test, its family and the table's extras.
report_options = _options(
    _test_option(PAIRED_TESTS),
    click.option("--permutations", default=PERMUTATIONS, show_default=True, type=click.IntRange(1),
                 help=f"--test randomisation (Smucker et al. 2007): random sign flips when there are more than "
                 f"{EXACT_FLIPS_UP_TO} topics (exact below)"),
    click.option("--seed", default=0, show_default=True, type=int, help="--test randomisation: the random seed"),
    click.option("--correction", type=click.Choice(CORRECTIONS), default=COMPARISON_DEFAULTS["correction"],
                 show_default=True, help="multiple-comparison correction over each measure's pairs (not with "
                 "--test tukey)"),
    click.option("--alpha", default=0.05, show_default=True,
                 type=ALPHA),
    click.option("--baseline", help="a run (by its tag): † / ‡ against it (MM23 §3); the family is its pairs"),
    click.option("--pairs", "pairs_file", type=click.Path(dir_okay=False),
                 help="also write every pair's numbers to this CSV file: pairwise p-values (raw and adjusted), "
                 "mean difference and effect size (Cohen's d_z), on both scales"),
    click.option("--order", type=click.Choice(ROW_ORDERS), default=COMPARISON_DEFAULTS["order"], show_default=True,
                 help=f"rows: as given, by decreasing mean of the first measure, or auto: given up to {LETTERS_UP_TO} "
                 "runs, by mean beyond (each list of numbers then mostly one range)"),
    click.option("--figure", "figure_file", type=click.Path(dir_okay=False),
                 help="also draw the comparison to this file (.png, .pdf or .svg): means with 95% confidence "
                 "intervals on both scales, ≠ in red"),
    click.option("--label", default="tab:irscales-comparison", show_default=True,
                 help="--format latex: the \\label"),
)

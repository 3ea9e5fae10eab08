"""The ``irscales`` command line: the papers' analyses on your own TREC runs.

Subcommands (``irscales SUBCOMMAND --help`` for each), one vocabulary (``--qrels``, ``--measures``,
``--depth`` with one default rule, ``--format``, ``-o``), each a client of :func:`irscales.evaluation.evaluate`:

``scores``       per-topic and mean scores of measures; ``--ranked`` adds their interval-scaled values
``report``       many runs: the comparison table (irscales.comparison) in table, Markdown, LaTeX or CSV
``compare``      two runs: FFF21 §7.3 paired tests on the original and the interval scale, + MM23's rule
``correlate``    Kendall τ and τ_AP among measures, original and interval-scaled
``ipso``         MM23's reporting rule: metric test (†) corroborated by the IPSO sign test (‡)
``scale``        the scale of a measure at a run length: size, ties, cache location
``sample-data``  real runs of the public Grid of Points on Cranfield (shipped) and their qrels, to try it

Every error ends the command with one line on stderr (``path:line: …`` for files) and exit code 1, or 2
for a usage error (an unknown option, a bad option value; the line points at ``--help``), as click and
argparse do: the group's :meth:`_Cli.invoke` is the single place where exceptions become messages.
"""

from __future__ import annotations

import os
import sys
import warnings
from dataclasses import replace
from pathlib import Path

import click

from irscales import measures as M
from irscales.cli._messages import flat as _flat, one_line as _one_line
from irscales.cli._output import (big_count as _big, emit as _emit, emit_columns as _emit_columns, judged_line,
                                  legend_of, n_line, scales_line, write as _write)
from irscales.cli._options import (ALPHA, TREC_EVAL_RECIPE, depth_option, format_option, ipso_test_option,
                                   judged_option, measures_given, measures_option, output_option, qrels_option, reading,
                                   reading_options, report_options, runs_argument, scale_options, ties_option)
from irscales.options import (COMPARISON_DEFAULTS, DEFAULT_MEASURES, SIGNIFICANCE, TEST_WORDS, ArgumentError, Settings,
                              check_output_path, default_depth)

# The one-call API (irscales.evaluation: the data layer, scipy through the significance tests and IPSO), the
# scale engine (irscales.enumeration, irscales.interval: numba) and pandas are imported inside the commands that
# use them: at the top they would add about 2.5 s to every ``irscales --help`` (python -X importtime, this
# machine; issue 49: --help in half a second).

__all__ = ["main"]


class _Fail(click.ClickException):
    def show(self, file=None):  # one line, no traceback
        click.echo(f"irscales: error: {self.format_message()}", err=True)


class _Usage(click.UsageError):
    """A bad option or argument: one line too, pointing at --help (exit code 2, as click's)."""

    def show(self, file=None):
        sub = f" {self.ctx.info_name}" if self.ctx is not None and self.ctx.parent is not None else ""
        click.echo(f"irscales: error: {_one_line(self)} (see irscales{sub} --help)", err=True)


class _Interrupted(click.ClickException):
    """Ctrl-C (SIGINT): one line and exit code 130 (128 + SIGINT), as shells report it."""

    exit_code = 130

    def __init__(self):
        super().__init__("interrupted")

    def show(self, file=None):
        click.echo("irscales: interrupted", err=True)


def _interrupt_in(e: BaseException) -> bool:
    """Whether a KeyboardInterrupt is among the causes of ``e``: numba's dispatcher turns one raised
    inside a compiled call into ``SystemError: CPUDispatcher(…) returned a result with an exception set``."""
    seen = set()
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return False


class _Cli(click.Group):
    """The error boundary: expected errors become one line; an interrupt ``irscales: interrupted`` and exit
    code 130; anything else one line that says it is a bug (``IRSCALES_DEBUG=1`` re-raises it with its
    traceback). Warnings become one line each."""

    def invoke(self, ctx):
        try:
            try:
                with warnings.catch_warnings():  # library warnings (a skipped topic …) as one line each
                    warnings.simplefilter("default")
                    warnings.showwarning = lambda message, *a, **k: _note(f"warning: {_flat(str(message))}")
                    return super().invoke(ctx)
            except Exception as e:
                if _interrupt_in(e):
                    raise KeyboardInterrupt from e
                raise
        except KeyboardInterrupt:
            if os.environ.get("IRSCALES_DEBUG"):
                raise
            raise _Interrupted() from None
        except click.UsageError as e:
            if isinstance(e, _Usage):
                raise
            raise _Usage(e.format_message(), e.ctx) from None
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as e:
            if os.environ.get("IRSCALES_DEBUG"):
                raise
            # the engine's errors, loaded only once a command failed (at the top they would slow --help down)
            from irscales.enumeration import CacheError, TieUndecidable
            from irscales.interval import NoIntervalScaleError, OverBudgetError

            if isinstance(e, OverBudgetError):  # the same refusal, worded for the command line
                raise _Fail(_one_line(OverBudgetError(e.builds, cli=True))) from None
            if isinstance(e, NoIntervalScaleError):  # leaving out the interval values is an option of scores only
                optional = ctx.invoked_subcommand == "scores"
                raise _Fail(_one_line(ValueError(e.message(cli=True, optional=optional)))) from None
            if isinstance(e, (ValueError, KeyError, OSError, MemoryError, NotImplementedError, OverflowError,
                              ArithmeticError, CacheError, TieUndecidable)):
                raise _Fail(_one_line(e)) from None
            # a bug: still one line, and how to see more
            raise _Fail(f"internal error ({type(e).__name__}: {_one_line(e)}); please report it "
                        "(IRSCALES_DEBUG=1 shows the traceback)") from None


# ----------------------------------------------------------------------------------- helpers


def _note(msg: str) -> None:
    click.echo(f"irscales: {msg}", err=True)


def _checked(fn, *args, **kwargs):
    """``fn(...)``, an :class:`~irscales.options.ArgumentError` as the usage error of its flag (exit code 2)."""
    try:
        return fn(*args, **kwargs)
    except ArgumentError as e:
        raise click.BadParameter(e.detail, param_hint=f"'{e.flag}'") from None


def _settings(kw: dict, *, progress: bool = True, **given) -> Settings:
    """The command's settings (:class:`irscales.options.Settings`: depth, ties, --max-rel-error, reading
    options …), checked once, before any file is read: a bad value is a usage error naming its flag."""
    return _checked(Settings, progress=None if progress else False, reading=reading(kw), **given)


def _outputs(inputs, **paths) -> None:
    """Every file the command will write (``output=``, ``pairs=``, ``figure=``), checked before any work: a
    folder that exists and can be written, and none of the ``inputs`` (the error names the flag)."""
    for name, path in paths.items():
        _checked(check_output_path, name, path, inputs)


def _evaluate(runs, qrels, measures: str, settings: Settings):
    """:func:`irscales.evaluation.evaluate` on the command's files (a folder or a list of run files)."""
    from irscales.evaluation import evaluate

    files = [Path(r) for r in runs]
    src = files[0] if len(files) == 1 and files[0].is_dir() else files
    return evaluate(qrels, src, measures, settings=settings)


def _interval_legend() -> str:
    from irscales.interval import INTERVAL_LEGEND  # the scale engine: with interval values only

    return INTERVAL_LEGEND


def _two_runs(ev) -> None:
    if len(ev.systems) != 2:
        raise ValueError(f"expected two runs with different run tags, found systems {list(ev.systems)}")


# ----------------------------------------------------------------------------------- commands


@click.group(cls=_Cli, context_settings={"help_option_names": ["-h", "--help"]},
             epilog=f"To reproduce trec_eval's numbers: {TREC_EVAL_RECIPE}. Errors are one line on stderr; "
             "exit code 1 for an error, 2 for a usage error (a bad option or value).")
@click.version_option(package_name="irscales")
def main() -> None:
    """Measurement theory of IR evaluation on your own runs (see the README)."""
    if hasattr(sys, "set_int_max_str_digits"):  # raw φ at depth 100,000 has 30,103 digits: print them all
        sys.set_int_max_str_digits(0)


@main.command(epilog=f"To reproduce trec_eval: {TREC_EVAL_RECIPE}.")
@runs_argument
@qrels_option
@measures_option(DEFAULT_MEASURES)
@depth_option(ranked=True)
@click.option("--ranked/--no-ranked", default=False, show_default=True,
              help="add the interval-scaled value (FFF21 eq. 2) of each measure, normalised to [0, 1]: the run's "
              "position among all runs of length N, one scale for every topic (recall base and ideal ranking "
              "not used), so a perfect run on a topic with fewer than N relevant documents is below 1")
@click.option("--phi", is_flag=True, help="with --ranked, also the raw position phi on the scale and its size K")
@click.option("--per-topic/--means-only", default=True, show_default=True)
@format_option
@output_option
@reading_options
@scale_options
@ties_option
@judged_option
def scores(runs, qrels, depth, ranked, phi, per_topic, fmt, output, build_scales, cache, progress, ties,
           max_rel_error, judged_threshold, **kw):
    """Scores of each measure per topic and mean; with --ranked also their interval-scaled values.

    RUNS are TREC run files or one directory of them. The interval-scaled value of a run is its position
    phi on the measure's scale over all runs of length N (FFF21 eq. 2; --ties), mapped onto [0, 1] by
    (phi - 1)/(K - 1): 0 the lowest value any run of length N takes, 1 the highest. The scale is the same
    for every topic, whatever its recall base (FFF21: so that means over topics are meaningful): AP is
    ranked by SP = AP x RB, nDCG by DCG, so the recall base and the ideal ranking do not enter, and a
    perfect AP on a topic with 2 relevant documents is about 0.26 at N = 10 (see the README). Where the
    interval value is an affine image of the measure (P@k, RBP with p = 1/2) the legend says so.

    With --ranked every measure gets its interval-scaled value or the command fails (exit 1) naming the
    measures without one at this --depth, the deepest N for each and the cheaper routes. The legend gives
    judged@N; below --judged-threshold a warning names the systems.
    """
    from irscales.cli._scores import OBJECT_COLUMNS, scores_table

    _outputs([*runs, qrels], output=output)
    settings = _settings(kw, depth=depth, ranked=ranked, ties=ties, max_rel_error=max_rel_error, phi=ranked and phi,
                         build=build_scales, cache=cache, progress=progress, judged_threshold=judged_threshold)
    ev = _evaluate(runs, qrels, measures_given(kw), settings)
    table = scores_table(ev, ranked=ranked, phi=ranked and phi, per_topic=per_topic)
    legend = legend_of(f"{len(ev.topics)} topics; {n_line(ev)}; topic 'all': the mean over topics.",
                     _interval_legend() if ranked else "",
                     "phi: the position on the scale (1..K, exact); K: the number of values of the measure over all "
                     f"runs of length N (ties {ties})" if ranked and phi else "",
                     scales_line(ev) if ranked else "", judged_line(ev))
    _emit_columns(table, fmt, output, legend, objects=OBJECT_COLUMNS)  # csv and tsv without pandas (issue 49)


@main.command()
@runs_argument
@qrels_option
@measures_option(DEFAULT_MEASURES)
@depth_option(ranked=True)
@report_options
@format_option
@output_option
@reading_options
@scale_options
@ties_option
@judged_option
def report(runs, qrels, depth, test, correction, permutations, seed, alpha, baseline, pairs_file, order, figure_file,
           label, fmt, output, build_scales, cache, progress, ties, max_rel_error, judged_threshold, **kw):
    """Many runs: the comparison table, original and interval-scaled means side by side.

    Markers (letters up to 26 runs, numbers beyond) name the systems each one is significantly better
    than; † / ‡ the MM23 rule against --baseline; ≠ where the original and the interval scale lead to
    different conclusions. --format latex compiles with the packages its first line names and fits the
    page; csv / tsv is one row per run (legend on stderr); --pairs FILE writes the pairwise p-values
    (raw and adjusted) and effect sizes; --figure FILE draws the means with their confidence intervals.
    """
    from irscales.comparison import check_pairing
    from irscales.comparison._render import wide_frame
    from irscales.data.trec import find_runs
    from irscales.evaluation import measure_specs

    _outputs([*runs, qrels], output=output, pairs=pairs_file, figure=figure_file)
    named = [Path(f).resolve() for f in (output, pairs_file, figure_file) if f]
    if len(set(named)) < len(named):
        raise click.BadParameter("--output, --pairs and --figure must name different files", param_hint="'--pairs'")
    if figure_file and Path(figure_file).suffix.lower() not in (".png", ".pdf", ".svg"):
        raise click.BadParameter(f"{figure_file}: the figure's file name must end in .png, .pdf or .svg",
                                 param_hint="'--figure'")
    settings = _settings(kw, depth=depth, ranked=True, ties=ties, max_rel_error=max_rel_error, build=build_scales,
                         cache=cache, progress=progress, judged_threshold=judged_threshold)
    files = [Path(r) for r in runs]  # a comparison over the budget is refused before any file is read
    n_runs = len(find_runs(files[0])) if len(files) == 1 and files[0].is_dir() else len(files)
    names = measures_given(kw)
    check_pairing(n_runs, len(measure_specs(names)), test, permutations)
    ev = _evaluate(runs, qrels, names, settings)
    table = ev.compare(test=test, correction=correction, alpha=alpha, baseline=baseline, permutations=permutations,
                       seed=seed, order=order)
    if fmt in ("csv", "tsv"):
        _emit(wide_frame(table), fmt, output, table.legend)
    else:
        _write({"table": str(table) + "\n", "markdown": table.to_markdown(),
                "latex": table.to_latex(label)}[fmt], output)
    if pairs_file:
        _write(table.pairs_frame().to_csv(index=False), pairs_file)
    if figure_file:
        table.plot(figure_file)


@main.command()
@click.argument("run_a", type=click.Path(exists=True, dir_okay=False))
@click.argument("run_b", type=click.Path(exists=True, dir_okay=False))
@qrels_option
@measures_option("AP")
@depth_option(ranked=True)
@click.option("--alpha", default=0.05, show_default=True, type=ALPHA)
@format_option
@output_option
@reading_options
@scale_options
@ties_option
@judged_option
def compare(run_a, run_b, qrels, depth, alpha, fmt, output, build_scales, cache, progress, ties, max_rel_error,
            judged_threshold, **kw):
    """Two runs: FFF21 §7.3 paired tests on the original and the interval scale, side by side.

    Does the verdict change when the measure is mapped to an interval scale? The legend gives MM23's
    rule for B against A (the same as irscales ipso) on each measure.
    """
    import pandas as pd

    from irscales.interval import INTERVAL_LEGEND
    from irscales.stats import _significance as S

    _outputs([run_a, run_b, qrels], output=output)
    settings = _settings(kw, depth=depth, ranked=True, ties=ties, max_rel_error=max_rel_error, build=build_scales,
                         cache=cache, progress=progress, judged_threshold=judged_threshold)
    ev = _evaluate([run_a, run_b], qrels, measures_given(kw), settings)
    _two_runs(ev)
    rows, lines = [], []
    a, b = ev.systems
    rule = COMPARISON_DEFAULTS["test"]  # MM23's rule with irscales ipso's default test
    for lab, m in ev.measures.items():
        orig = ev.decision_values(lab)  # exact for a rational measure: both scales decide alike
        iv = ev.interval(lab).to_numpy()
        for key in (proc.key for proc in SIGNIFICANCE if not proc.omnibus):  # the tests of two runs
            fn = S.PROCEDURES[key]
            o, r = fn(orig, alpha=alpha), fn(iv, alpha=alpha)
            rows.append({"measure": lab, "test": S.TEST_LABELS[key], "p_original": float(o.pvalue[0]),
                         "sig_original": bool(o.significant[0]), "p_interval": float(r.pvalue[0]),
                         "sig_interval": bool(r.significant[0]), "changed": bool(o.significant[0] != r.significant[0])})
        c = _corroboration(ev, lab, m, rule, alpha)
        lines.append(f"{lab}: mean {a} = {float(sum(orig[:, 0]) / len(orig)):.4f}, "
                     f"{b} = {float(sum(orig[:, 1]) / len(orig)):.4f}; interval-scaled "
                     f"{float(sum(iv[:, 0]) / len(iv)):.4f}, {float(sum(iv[:, 1]) / len(iv)):.4f} (K = {_big(ev.scales[lab].K)})")
        lines += [f"  {x}" for x in c.lines()[1:]]
    legend = legend_of(f"A = {a}, B = {b}; {len(ev.topics)} topics; {n_line(ev)}; p: two-sided; "
                     f"sig: p <= {alpha}; changed: the decision differs between the original and the interval scale.",
                     INTERVAL_LEGEND, scales_line(ev), judged_line(ev),
                     f"MM23's rule ({TEST_WORDS[rule]}), as irscales ipso:", *lines)
    _emit(pd.DataFrame(rows), fmt, output, legend)


def _corroboration(ev, lab: str, m: M.Measure, test: str, alpha: float):
    """MM23's rule for B against A on measure ``lab`` (the one implementation: irscales.ipso.corroborate)."""
    from irscales.ipso import corroborate

    col, depth = ev.collection, ev.n(lab)
    graded = getattr(m, "gains", "binary") == "graded"
    use = col.rel_at(depth) if graded or not m.binary else col.binary(depth)
    ideal = col.ideal(depth) if graded else None
    res = corroborate(use[0], use[1], m, depth, rb=col.rb, ideal=ideal, test=test, alpha=alpha, always_ipso=True)
    return replace(res, measure=lab)  # the measure as the user named it


@main.command()
@click.option("--measures", "measure_names", help="one measure, e.g. DCG_b02, RBP_p08, AP (see irscales scores --help)")
@click.option("--measure", "measure_alias", hidden=True)
@click.option("--metric", "metric_alias", hidden=True)
@click.option("--depth", required=True, type=click.IntRange(1, None),
              help="run length N (each measure has a largest N; the error says which and why)")
@click.option("--grades", default=None, type=click.IntRange(2, None),
              help="number of relevance grades G: the scale over all G^N runs with grades 0..G-1 (default 2)")
@click.option("--qrels", type=click.Path(exists=True, dir_okay=False),
              help="take G from these qrels (their largest grade + 1), for a graded measure")
@format_option
@output_option
@scale_options
def scale(depth, grades, qrels, fmt, output, build_scales, cache, progress, **kw):
    """The scale of a measure over all G^N runs (binary: G = 2): size, ties and where its cache lives."""
    import pandas as pd

    from irscales.enumeration import OverBudget, plan_scale
    from irscales.interval import uses_grades

    _outputs([qrels] if qrels else [], output=output)
    names = measures_given(kw, one=True)
    m = M.parse(names.strip())
    if qrels is not None:
        from irscales.data.trec import read_qrels
        q_grades = int(read_qrels(qrels, negative="zero")["rel"].max()) + 1
        if grades is not None and grades != q_grades:
            raise click.BadParameter(f"--grades {grades} but the qrels have grades 0..{q_grades - 1}",
                                     param_hint="'--grades'")
        grades = q_grades if uses_grades(m) else 2
    grades = grades or 2
    if grades > 2 and not uses_grades(m):
        raise ValueError(f"{m.key} uses binary relevance: --grades applies to graded measures (gRBP, gP, "
                         "NDCG(gains='graded') …)")
    c = grades - 1 if grades > 2 else 1
    try:
        route = plan_scale(m, depth, c=c, cache=cache, build=build_scales)  # irscales.enumeration.scale's plan
    except OverBudget as e:  # the sizes asked here are those of ties unq: --ties is no way out
        raise _Fail(e.message(cli=True, counted=False)) from None
    if route.kind == "build":
        _note(f"building the scale of {route.cost}")
    sc = route.scale(progress=progress)
    n_runs, n_distinct = int(sc.n_runs), int(sc.n_distinct)
    row = {"measure": m.key, "N": depth, "grades": grades, "runs": n_runs, "distinct": n_distinct}
    if n_distinct <= 50_000_000 and sc.method != "count":  # a counted scale stores no counts
        counts = sc.counts
        row["tied_values"], row["largest_tie"] = int((counts > 1).sum()), int(counts.max())
    row["method"] = (f"count (phi counted, nothing stored{': ' + sc.reason if sc.reason else ''})"
                     if sc.method == "count" else f"{sc.method} ({sc.mode} keys)")
    row["cache"] = str(sc.directory) if sc.directory else "not cached (in memory, closed form or counted)"
    if fmt != "table":
        _emit(pd.DataFrame([row]), fmt, output, "distinct: the values phi takes are 1..distinct (ties unq)")
        return
    text = [f"measure      {m.key}  ({m!r})",
            f"run length   N = {depth}: {_big(n_runs, f'{grades}^{depth}')} runs"
            + (f" over {grades} grades" if grades > 2 else ""),
            f"distinct     {_big(n_distinct)} values (the interval-scaled measure: phi in 1..{_big(n_distinct)}, "
            f"normalised (phi - 1)/{_big(n_distinct - 1)})",
            (f"ties         {row['tied_values']:,} values are taken by more than one run (largest tie: "
             f"{row['largest_tie']:,} runs)") if "tied_values" in row else
            f"ties         {_big(n_runs - n_distinct)} runs beyond one per distinct value",
            f"method       {row['method']}", f"cache        {row['cache']}"]
    _write("\n".join(text) + "\n", output)


@main.command()
@runs_argument
@qrels_option
@measures_option(",".join(M.CLASSIC_MEASURES))
@depth_option(ranked=True)
@format_option
@output_option
@reading_options
@scale_options
@ties_option
@judged_option
def correlate(runs, qrels, depth, fmt, output, build_scales, cache, progress, ties, max_rel_error, judged_threshold,
              **kw):
    """Kendall τ (FFF21 §3.3) and τ_AP (Fer17 eq. 2) among measures, original and interval-scaled.

    Systems are ranked by their mean score over topics (exactly: near-equal means are compared as
    fractions); τ_AP is symmetric (the average of both directions). Needs at least three runs. A NaN
    comes with its reason on stderr.
    """
    _outputs([*runs, qrels], output=output)
    settings = _settings(kw, depth=depth, ranked=True, ties=ties, max_rel_error=max_rel_error, build=build_scales,
                         cache=cache, progress=progress, judged_threshold=judged_threshold)
    names = measures_given(kw)
    from irscales.evaluation import measure_specs
    if len(measure_specs(names)) < 2:
        raise click.BadParameter(f"correlation is between measures: give at least two, got {names!r}",
                                 param_hint="'--measures'")
    ev = _evaluate(runs, qrels, names, settings)
    frame, notes = ev.correlations()
    for n in notes:
        _note(f"note: {n}")
    legend = legend_of(f"{len(ev.systems)} systems ranked by their mean over {len(ev.topics)} topics; "
                     f"{n_line(ev)}. tau: Kendall's tau_b (FFF21 §3.3); tau_ap: AP correlation (Fer17 eq. 2), "
                     "symmetric; *_interval: the same on the interval-scaled means.", scales_line(ev), judged_line(ev))
    _emit(frame, fmt, output, legend)


@main.command()
@click.argument("run_a", type=click.Path(exists=True, dir_okay=False))
@click.argument("run_b", type=click.Path(exists=True, dir_okay=False))
@click.argument("qrels_arg", required=False, metavar="[QRELS]", type=click.Path(exists=True, dir_okay=False))
@click.option("--qrels", type=click.Path(exists=True, dir_okay=False), help="qrels file (topic iter docno grade)")
@measures_option("AP", one=True)
@depth_option(ranked=True)
@ipso_test_option
@click.option("--alpha", default=0.05, show_default=True, type=ALPHA)
@format_option
@output_option
@reading_options
@judged_option
def ipso(run_a, run_b, qrels_arg, qrels, depth, test, alpha, fmt, output, judged_threshold, **kw):
    """MM23 §3: is challenger RUN_B better than champion RUN_A? Metric test (†) + IPSO sign test (‡).

    (QRELS as a third argument is the older spelling of --qrels.)
    """
    import pandas as pd

    if (qrels is None) == (qrels_arg is None):
        raise click.BadParameter("give the qrels once, with --qrels", param_hint="'--qrels'")
    qrels = qrels or qrels_arg
    _outputs([run_a, run_b, qrels], output=output)
    # IPSO compares runs of one length N, as φ does: the interval values' default run length
    settings = _settings(kw, depth=default_depth(ranked=True) if depth is None else depth,
                         judged_threshold=judged_threshold)
    names = measures_given(kw, one=True)
    ev = _evaluate([run_a, run_b], qrels, names, settings)
    _two_runs(ev)
    lab, m = next(iter(ev.measures.items()))
    c = _corroboration(ev, lab, m, test, alpha)
    i = c.ipso
    row = {"measure": lab, "depth": ev.n(lab), "test": test, "mean_a": c.mean_a, "mean_b": c.mean_b,
           "effect": c.effect, "p_metric": c.pvalue, "equal": i.equal, "ni": i.ni, "ns": i.ns,
           "nonseparable": i.nonseparable, "p_ipso": i.pvalue, "marker": c.marker}
    if fmt == "table":
        _write("\n".join([f"A = {ev.systems[0]}   B = {ev.systems[1]}   topics = {len(ev.topics)}", *c.lines()]) + "\n",
               output)
    else:
        _emit(pd.DataFrame([row]), fmt, output, legend_of(*c.lines()))


@main.command("sample-data")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--collection", type=click.Choice(["cranfield", "cisi", "cacm"]), default="cranfield",
              show_default=True, help="a public collection shipped with irscales")
@click.option("--runs", "n_runs", default=10, show_default=True, type=click.IntRange(2, 612),
              help="how many runs of the public Grid of Points (retrieval models × stemmers × stop lists)")
@click.option("--depth", default=100, show_default=True, type=click.IntRange(1, None), help="documents per topic")
def sample_data(directory, collection, n_runs, depth):
    """Write real runs and qrels to try irscales on: DIRECTORY/runs/input.* and DIRECTORY/qrels.txt.

    The runs are systems of the public Grid of Points (irscales.data.gop: BM25, language models, TF-IDF …
    with Lucene's stop list and the Porter stemmer first) on a public test collection shipped with the
    package; the qrels are its relevance judgments. Real runs, real judgments: nothing simulated.
    """
    from irscales.data import gop
    from irscales.data._gop_index import grid_systems

    systems = grid_systems()
    first = [s for s in systems if (s.stop, s.lug) == ("lucene", "porter")]
    pick = (first + [s for s in systems if s not in first])[:n_runs]
    _note(f"writing {len(pick)} runs of {collection} (depth {depth}) to {directory} …")
    files, q = gop.write_runs(collection, pick, directory, depth=depth)
    click.echo(f"{Path(directory) / 'runs'}  ({len(files)} runs)\n{q}")


"""The ``irscales`` command line: the papers' analyses on your own TREC runs.

Subcommands (``irscales SUBCOMMAND --help`` for each):

``scores``     per-topic and mean scores of measures (any depth); ``--ranked`` adds their
               interval-scaled (ranked) versions where a scale is computable
``compare``    two runs: FFF21 §7.3 paired tests on the original and the ranked measure, + IPSO
``scale``      the scale of a measure at a run length: size, ties, cache location
``correlate``  Kendall τ and τ_AP among measures, original and ranked
``ipso``       MM23's reporting rule: metric test (†) corroborated by the IPSO sign test (‡)

Every error ends the command with one line on stderr (``path:line: …`` for files) and exit code 1, or 2
for a usage error (an unknown option, a bad option value; the line points at ``--help``), as click and
argparse do: the group's :meth:`_Cli.invoke` is the single place where exceptions become messages.
"""

from __future__ import annotations

import os
import shutil
import sys
import warnings
from itertools import combinations
from pathlib import Path

import click
import numpy as np
import pandas as pd

from irscales import measures as M
from irscales.cli_messages import as_flags as _as_flags, one_line as _one_line
from irscales.cli_output import check_output as _check_output, emit as _emit, exact_mean as _exact_mean
from irscales.cli_options import (MEASURE_HELP, TREC_EVAL_RECIPE, depth_option, format_option, output_option,
                                  qrels_option, reading, reading_options, runs_argument, scale_options, ties_option)
from irscales.correlation import kendall_tau, system_means, tau_ap_symmetric
from irscales.enumeration import CacheError, TieUndecidable, ranked_runs
from irscales.enumeration import scale as _scale
from irscales.enumeration.routes import OverBudget, choose_route

# The data layer (scipy, through the presets), the significance tests and IPSO's corroboration
# (scipy.stats) are imported inside the commands that use them: at the top they would add about
# 0.5 s and 2 s to every ``irscales --help`` (python -X importtime, this machine).

__all__ = ["main"]


class _Fail(click.ClickException):
    def show(self, file=None):  # one line, no traceback
        click.echo(f"irscales: error: {self.format_message()}", err=True)


class _Usage(click.UsageError):
    """A bad option or argument: one line too, pointing at --help (exit code 2, as click's)."""

    def show(self, file=None):
        sub = f" {self.ctx.info_name}" if self.ctx is not None and self.ctx.parent is not None else ""
        click.echo(f"irscales: error: {_one_line(self)} (see irscales{sub} --help)", err=True)


class _Cli(click.Group):
    """The error boundary: expected errors become one line; anything else one line that says it is a
    bug (``IRSCALES_DEBUG=1`` re-raises it with its traceback). Warnings become one line each."""

    def invoke(self, ctx):
        try:
            with warnings.catch_warnings():  # library warnings (a skipped topic …) as one line each
                warnings.simplefilter("default")
                warnings.showwarning = lambda message, *a, **k: _note(f"warning: {_as_flags(str(message))}")
                return super().invoke(ctx)
        except click.UsageError as e:
            if isinstance(e, _Usage):
                raise
            raise _Usage(e.format_message(), e.ctx) from None
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except (ValueError, KeyError, OSError, MemoryError, NotImplementedError, OverflowError,
                ArithmeticError, CacheError, TieUndecidable) as e:
            if os.environ.get("IRSCALES_DEBUG"):
                raise
            raise _Fail(_one_line(e)) from None
        except Exception as e:  # a bug: still one line, and how to see more
            if os.environ.get("IRSCALES_DEBUG"):
                raise
            raise _Fail(f"internal error ({type(e).__name__}: {_one_line(e)}); please report it "
                        "(IRSCALES_DEBUG=1 shows the traceback)") from None


# ----------------------------------------------------------------------------------- helpers


def _note(msg: str) -> None:
    click.echo(f"irscales: {msg}", err=True)


def _measure_specs(text: str) -> list[tuple[str, M.Measure]]:
    """(label, measure) pairs: a name is shown as typed (map, P_10, nDCG@10, RBP_p08), a constructor
    form by its key (``NDCG(discount='log2p1', gains='graded')`` → gnDCG_log2p1)."""
    names = [x for x in M.split_top_level(text) if x]
    if not names:
        raise ValueError("no measure given (e.g. --measures AP,nDCG_b02,RR)")
    specs = []
    for x in names:
        m = M.parse(x)
        specs.append(("".join(x.split()) if "(" not in x else m.key, m))
    labels = [lab for lab, _ in specs]
    dup = sorted({lab for lab in labels if labels.count(lab) > 1})
    if dup:
        raise ValueError(f"measure {dup[0]} is given more than once in {text!r}")
    return specs


def _check_depth(specs, col, depth: int) -> None:
    """Refuse measures whose meaning the cut at --depth would change (never a silent wrong number)."""
    longest = int(col.run_lengths.max(initial=0))
    for name, m in specs:
        k = getattr(m, "k", None)
        if k is not None and k > depth:
            raise ValueError(f"{name} looks at {k} ranks but runs are cut at --depth {depth}; pass --depth {k}")
        if name not in M.WHOLE_RUN:
            continue
        need, why = longest, f"the longest run has {longest} documents"
        top_rb = int(col.rb.max(initial=0))
        if isinstance(m, M.NDCG) and top_rb > need:  # its ideal run holds every relevant document
            need, why = top_rb, f"a topic has {top_rb} relevant documents"
        elif isinstance(m, M.RPrec) and top_rb < need:  # only the top RB ranks count
            need, why = top_rb, f"a topic has {top_rb} relevant documents"
        if depth < need:
            raise ValueError(f"{name} is computed over the whole run as trec_eval does, but runs are cut at "
                             f"--depth {depth} ({why}); pass --depth {need}, or name a cut-off measure "
                             f"(e.g. {m.key}@{depth})")


def _collection(runs, qrels, depth: int, options: dict):
    from irscales.data.collection import Collection

    files = [Path(r) for r in runs]
    src = files[0] if len(files) == 1 and files[0].is_dir() else files
    return Collection.from_trec(src, qrels, depth=depth, **options)


def _scale_target(m: M.Measure, depth: int) -> tuple[M.Measure, int]:
    """The measure and run length whose scale gives ``m``'s ranked version: a measure cut at k ranks
    takes the same distinct values over REL^N as the uncut one over REL^k, so φ is the same."""
    k = getattr(m, "k", None)
    if k is not None and k > depth:
        raise ValueError(f"{m.key} looks at {k} ranks, more than the run length {depth}")
    if isinstance(m, M.Cut):
        return m.measure, m.k
    if isinstance(m, M.P) and m.k is not None:
        return M.P(), m.k
    return m, depth


def _graded(m: M.Measure) -> bool:
    return not m.binary or getattr(m, "gains", "binary") == "graded"


def _ranked_plan(specs: list[tuple[str, M.Measure]], depth: int, cache: bool, build: bool, require: bool,
                 graded_ok: bool = False, counting_ok: bool = True, ties: str = "unq",
                 grades: int | None = None) -> dict:
    """For each measure label, (measure, N, cost, c) of its scale over runs with grades 0..c, or None
    with a note saying why not: the route of :func:`irscales.enumeration.routes.choose_route`.

    ``cost`` is None when φ is counted (:mod:`irscales.enumeration.counting`: P, R, RR, RBP, DCG, nDCG, also
    beyond the engine's depths): nothing is built and the engine's depth limit does not apply. Refuses up front
    (one line: the estimate, the cheaper options) a build over the budget without ``--build-scales``;
    announces the others on stderr. ``require``: a missing ranked version is an error.
    ``grades``: the collection's largest grade c; graded measures are then ranked over the (c+1)^N graded
    runs (None: graded measures are skipped with a note, as before the qrels are read).
    ``graded_ok``: a graded measure over binary runs is what is asked for (the ``scale`` command).
    ``counting_ok``: False when a stored (or closed-form) scale is what is asked for.
    """
    plan, expensive = {}, []
    for label, m in specs:
        c = max(1, grades) if grades is not None and _graded(m) else 1
        if not graded_ok and _graded(m) and grades is None:
            why = (f"no ranked {label}: it uses relevance grades; its ranked version is over the graded runs "
                   "of the qrels' grades")
            plan[label] = None
        else:
            target, n = _scale_target(m, depth)
            try:
                route = choose_route(target, n, c=c, ties=ties, cache=cache, build=build,
                                     method="auto" if counting_ok else "scale")
            except OverBudget as e:
                cheaper = "; ".join(e.cheaper(cli=True, counted=counting_ok))
                expensive.append(f"{e.cost}{_free_space(e.cost.directory)}"
                                 + (f" (cheaper: {cheaper})" if cheaper else ""))
                plan[label] = None
                continue
            except (ValueError, NotImplementedError) as e:  # the planner's reason says how far each route reaches
                why, plan[label] = f"no ranked {label} at depth {depth}: {e}", None
            else:
                plan[label] = (target, n, None if route.kind == "count" else route.cost, c)
                continue
        if require:
            raise ValueError(why)
        _note(f"note: {why}")
    if expensive:
        raise ValueError("the ranked versions need a one-time scale build: " + "; ".join(expensive)
                         + "; pass --build-scales to build it, or use a smaller --depth")
    return plan


def make_scale(target: M.Measure, n: int, **kw):
    """The stored (or closed-form) scale a plan of :func:`_ranked_plan` chose; the plan refused what needed
    --build-scales, so the build may go ahead here."""
    return _scale(target, n, method="scale", build=True, **kw)


def _plan_for(specs, col, depth: int, cache: bool, build: bool, require: bool, ties: str) -> dict:
    """:func:`_ranked_plan` of the graded measures once the qrels' grades are known (binary ones are
    planned before reading, to refuse early)."""
    graded = [(lab, m) for lab, m in specs if _graded(m)]
    return _ranked_plan(graded, depth, cache, build, require, ties=ties, grades=int(col.max_grade)) if graded else {}


def _free_space(directory: Path | None) -> str:
    """' (N GB free there)' for the nearest existing parent of ``directory``."""
    p = directory
    while p is not None and not p.exists() and p != p.parent:
        p = p.parent
    if p is None:
        return ""
    try:
        return f" ({shutil.disk_usage(p).free / 1e9:.1f} GB free there)"
    except OSError:
        return ""


def _ranked(plan_entry, col, depth: int, cache: bool, progress: bool, ties: str = "unq") -> np.ndarray:
    """The ranked values φ (tie strategy ``ties``) as a (T, S) matrix of the runs of ``col`` cut at ``depth``
    (graded runs when the plan's c > 1). Exact (:mod:`irscales.enumeration.ties`): int64 or Python ints;
    ``mid`` float64 when every 2φ < 2^53 (exact halves), else Fractions; never rounded through float64."""
    target, n, cost, c = plan_entry
    rel = (col.binary(depth) if c == 1 else col.rel_at(depth))[..., :n]
    if cost is not None and cost.runs:
        _note(f"building the scale of {cost}")
    counted = cost is None  # the plan's route: counted, or a stored (closed-form, cached, built) scale
    return ranked_runs(target, rel, ties, c=c, cache=cache, build=True, method="count" if counted else "scale",
                       progress=progress and (n >= 36 if counted else bool(cost.runs))).T


def _two_runs(col) -> None:
    if len(col.systems) != 2:
        raise ValueError(f"expected two runs with different run tags, found systems {list(col.systems)}")


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
@depth_option(1000, ranked=True)
@click.option("--measures", "measure_names", default="AP,nDCG_b02,RR", show_default=True, help=MEASURE_HELP)
@click.option("--ranked/--no-ranked", default=False, show_default=True,
              help="add the interval-scaled value (FFF21 eq. 2) of each measure whose scale is computable")
@click.option("--per-topic/--means-only", default=True, show_default=True)
@format_option
@output_option
@reading_options
@scale_options
@ties_option
def scores(runs, qrels, depth, measure_names, ranked, per_topic, fmt, output, build_scales, cache, progress,
           ties, **kw):
    """Scores of each measure per topic and mean, at any depth; with --ranked also their
    interval-scaled version (FFF21 §5).

    RUNS are TREC run files or one directory of them. The ranked value of a run is φ of its score
    (FFF21 eq. 2; --ties) over all 2^N binary runs of length N (lenient relevance); it is left
    empty, with a note on stderr, for measures whose scale is not computable at N.
    """
    _check_output(output, [*runs, qrels])
    specs = _measure_specs(measure_names)
    binary = [(lab, m) for lab, m in specs if not _graded(m)]
    plan = _ranked_plan(binary, depth, cache, build_scales, require=False, ties=ties) if ranked else {}
    col = _collection(runs, qrels, depth, reading(kw))
    _check_depth(specs, col, depth)
    if ranked:
        plan.update(_plan_for(specs, col, depth, cache, build_scales, False, ties))
    rows = []
    for label, m in specs:
        orig = col.evaluate(m, depth)
        rank = (_ranked(plan[label], col, depth, cache, progress, ties) if plan.get(label)
                else np.full(orig.shape, np.nan))
        for s, sys_name in enumerate(col.systems):
            if per_topic:
                for t, topic in enumerate(col.topics):
                    rows.append((sys_name, topic, label, orig[t, s], rank[t, s]))
            rows.append((sys_name, "all", label, orig[:, s].mean(), _exact_mean(rank[:, s])))
    frame = pd.DataFrame(rows, columns=["system", "topic", "measure", "value", "ranked"])
    if not ranked:
        frame = frame.drop(columns="ranked")
    _emit(frame, fmt, output)


@main.command()
@click.argument("run_a", type=click.Path(exists=True, dir_okay=False))
@click.argument("run_b", type=click.Path(exists=True, dir_okay=False))
@qrels_option
@depth_option(10, ranked=True)
@click.option("--measure", "measure_name", default="AP", show_default=True, help="one measure (see scores --help)")
@click.option("--alpha", default=0.05, show_default=True, type=click.FloatRange(0, 1, min_open=True, max_open=True))
@format_option
@output_option
@reading_options
@scale_options
@ties_option
def compare(run_a, run_b, qrels, depth, measure_name, alpha, fmt, output, build_scales, cache, progress, ties,
            **kw):
    """Two runs: FFF21 §7.3 paired tests on the original and the ranked measure, side by side.

    Does the verdict change when the measure is mapped to an interval scale? The last lines give
    MM23's IPSO counts of B against A and the IPSO sign test.
    """
    from irscales.stats import significance as S
    from irscales.ipso import ipso_sign_test

    _check_output(output, [run_a, run_b, qrels])
    specs = _measure_specs(measure_name)
    if len(specs) != 1:
        raise ValueError(f"--measure takes one measure, got {len(specs)}: {measure_name!r}")
    label, m = specs[0]
    plan = {} if _graded(m) else _ranked_plan(specs, depth, cache, build_scales, require=True, ties=ties)
    col = _collection([run_a, run_b], qrels, depth, reading(kw))
    _two_runs(col)
    _check_depth(specs, col, depth)
    plan.update(_plan_for(specs, col, depth, cache, build_scales, True, ties))
    orig = col.evaluate(m, depth)  # (T, 2)
    rank = _ranked(plan[label], col, depth, cache, progress, ties)
    rows = []
    for key, fn in (("sign", S.sign_test), ("ranksum", S.rank_sum_test), ("signrank", S.signed_rank_test),
                    ("ttest", S.paired_t_test)):
        o, r = fn(orig, alpha=alpha), fn(rank, alpha=alpha)
        rows.append({"test": S.TEST_LABELS[key], "p_original": float(o.pvalue[0]), "sig_original": bool(o.significant[0]),
                     "p_ranked": float(r.pvalue[0]), "sig_ranked": bool(r.significant[0]),
                     "changed": bool(o.significant[0] != r.significant[0])})
    frame = pd.DataFrame(rows)
    _emit(frame, fmt, output)
    ip = ipso_sign_test(col.binary(depth)[0], col.binary(depth)[1], depth)
    if fmt == "table" and not output:
        a, b = col.systems
        click.echo(f"\n{label} at depth {depth}: mean {a} = {orig[:, 0].mean():.4f}, mean {b} = {orig[:, 1].mean():.4f}; "
                   f"ranked means {rank[:, 0].mean():.2f}, {rank[:, 1].mean():.2f}")
        click.echo(f"IPSO {b} vs {a}: = {ip.equal}, ni {ip.ni}, ns {ip.ns}, non-separable {ip.nonseparable}; "
                   f"IPSO sign test p = {ip.pvalue:.4g}")


@main.command()
@click.option("--measure", "measure_name", required=True, help="e.g. DCG_b02, RBP_p08, AP (see scores --help)")
@click.option("--depth", required=True, type=click.IntRange(1, None),
              help="run length N (each measure has a largest N; the error says which and why)")
@click.option("--grades", default=2, show_default=True, type=click.IntRange(2, None),
              help="number of relevance grades G: the scale over all G^N runs with grades 0..G-1")
@scale_options
def scale(measure_name, depth, grades, build_scales, cache, progress):
    """The scale of a measure over all G^N runs (binary: G = 2): size, ties and where its cache lives."""
    m = M.parse(measure_name)
    if grades > 2 and not _graded(m):
        raise ValueError(f"{m.key} uses binary relevance: --grades applies to graded measures (gRBP, gP, "
                         "NDCG(gains='graded') …)")
    plan = _ranked_plan([(m.key, m)], depth, cache, build_scales, require=True, graded_ok=True, counting_ok=False,
                        grades=grades - 1 if grades > 2 else None)
    target, n, cost, c = plan[m.key]
    if cost.runs:
        _note(f"building the scale of {cost}")
    sc = make_scale(target, n, c=c, cache=cache, progress=progress and bool(cost.runs))
    click.echo(f"measure      {m.key}  ({m!r})")
    click.echo(f"run length   N = {depth}: {sc.n_runs:,} runs" + (f" (scale of {target.key} at N = {n})"
                                                                     if n != depth else ""))
    click.echo(f"distinct     {sc.n_distinct:,} values (the ranked measure takes 1..{sc.n_distinct:,})")
    if sc.n_distinct <= 50_000_000:
        counts = sc.counts
        click.echo(f"ties         {int((counts > 1).sum()):,} values are taken by more than one run "
                   f"(largest tie: {int(counts.max()):,} runs)")
    else:
        click.echo(f"ties         {sc.n_runs - sc.n_distinct:,} runs beyond one per distinct value")
    click.echo(f"method       {sc.method} ({sc.mode} keys)")
    click.echo(f"cache        {sc.directory if sc.directory else 'not cached (in memory or closed form)'}")


@main.command()
@runs_argument
@qrels_option
@depth_option(10, ranked=True)
@click.option("--measures", "measure_names", default=",".join(M.FFF21_MEASURES), show_default=True,
              help=MEASURE_HELP)
@format_option
@output_option
@reading_options
@scale_options
@ties_option
def correlate(runs, qrels, depth, measure_names, fmt, output, build_scales, cache, progress, ties, **kw):
    """Kendall τ (FFF21 §3.3) and τ_AP (Fer17 eq. 2) among measures, original and ranked.

    Systems are ranked by their mean score over topics; τ_AP is symmetric (average of both
    directions). Needs at least three runs. Ranked columns are empty for measures without a scale.
    """
    _check_output(output, [*runs, qrels])
    specs = _measure_specs(measure_names)
    if len(specs) < 2:
        raise click.BadParameter(f"correlation is between measures: give at least two, got {measure_names!r}",
                                 param_hint="'--measures'")
    plan = _ranked_plan([(lab, m) for lab, m in specs if not _graded(m)], depth, cache, build_scales,
                        require=False, ties=ties)
    col = _collection(runs, qrels, depth, reading(kw))
    if len(col.systems) < 3:
        raise ValueError(f"correlation needs at least 3 runs, got {len(col.systems)}")
    _check_depth(specs, col, depth)
    plan.update(_plan_for(specs, col, depth, cache, build_scales, False, ties))
    means = {lab: col.evaluate(m, depth).mean(0) for lab, m in specs}
    # exact means of the ranked values: float means of φ beyond 2^53 would merge or swap systems
    rmeans = {lab: system_means(_ranked(plan[lab], col, depth, cache, progress, ties)) for lab, _ in specs
              if plan[lab]}
    nan = float("nan")
    rows = []
    for a, b in combinations([lab for lab, _ in specs], 2):
        both = a in rmeans and b in rmeans
        row = {"measure_a": a, "measure_b": b, "tau": float(kendall_tau(means[a], means[b])),
               "tau_ranked": float(kendall_tau(rmeans[a], rmeans[b])) if both else nan}
        try:
            row["tau_ap"] = float(tau_ap_symmetric(means[a], means[b]))
            row["tau_ap_ranked"] = float(tau_ap_symmetric(rmeans[a], rmeans[b])) if both else nan
        except ValueError:  # τ_AP is undefined with tied system means
            row["tau_ap"] = row["tau_ap_ranked"] = nan
        rows.append(row)
    _emit(pd.DataFrame(rows), fmt, output)


@main.command()
@click.argument("run_a", type=click.Path(exists=True, dir_okay=False))
@click.argument("run_b", type=click.Path(exists=True, dir_okay=False))
@click.argument("qrels", type=click.Path(exists=True, dir_okay=False))
@depth_option(10)
@click.option("--metric", "measure_name", default="AP", show_default=True, help="one measure (see scores --help)")
@click.option("--test", type=click.Choice(["t", "wilcoxon", "sign"]), default="t", show_default=True)
@click.option("--alpha", default=0.05, show_default=True, type=click.FloatRange(0, 1, min_open=True, max_open=True))
@reading_options
def ipso(run_a, run_b, qrels, depth, measure_name, test, alpha, **kw):
    """MM23 §3: is challenger RUN_B better than champion RUN_A? Metric test (†) + IPSO sign test (‡)."""
    from irscales.ipso import corroborate

    specs = _measure_specs(measure_name)
    if len(specs) != 1:
        raise ValueError(f"--metric takes one measure, got {len(specs)}: {measure_name!r}")
    m = specs[0][1]
    col = _collection([run_a, run_b], qrels, depth, reading(kw))
    _two_runs(col)
    _check_depth(specs, col, depth)
    rel = col.rel_at(depth)
    graded = getattr(m, "gains", "binary") == "graded"
    use = rel if graded or not m.binary else col.binary(depth)
    ideal = col.ideal(depth) if graded else None
    res = corroborate(use[0], use[1], m, depth, rb=col.rb, ideal=ideal, test=test, alpha=alpha)
    click.echo(f"A = {col.systems[0]}   B = {col.systems[1]}   topics = {len(col.topics)}")
    for line in res.lines():
        click.echo(line)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""The ``irscales`` command line: the papers' analyses on your own TREC runs.

Subcommands (``irscales SUBCOMMAND --help`` for each):

``scores``     per-topic and mean scores of measures and of their interval-scaled (ranked) versions
``compare``    two runs: FFF21 §7.3 paired tests on the original and the ranked measure, + IPSO
``scale``      the scale of a measure at a run length: size, ties, cache location
``correlate``  Kendall τ and τ_AP among measures, original and ranked
``ipso``       MM23's reporting rule: metric test (†) corroborated by the IPSO sign test (‡)

Bad input ends with exit code 1 and one line saying what was wrong (``path:line: …`` for files).
"""

from __future__ import annotations

import sys
from itertools import combinations
from pathlib import Path

import click
import numpy as np
import pandas as pd

from . import measures as M

FORMATS = ("table", "csv", "tsv")


class _Fail(click.ClickException):
    def show(self, file=None):  # one line, no traceback
        click.echo(f"irscales: error: {self.format_message()}", err=True)


def _guard(fn):
    """Turn expected errors (bad files, bad names, missing data) into one-line messages."""
    import functools

    from .paths import MissingSharedData

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (ValueError, KeyError, FileNotFoundError, MissingSharedData, MemoryError) as e:
            msg = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
            raise _Fail(str(msg)) from None
    return wrapper


def _measures(text: str) -> list[M.Measure]:
    out = [M.parse(x) for x in text.split(",") if x.strip()]
    if not out:
        raise ValueError("no measure given (e.g. --measures AP,nDCG_b02,RR)")
    return out


def _collection(runs, qrels, depth: int, on_missing_topic: str):
    from .collections import Collection

    files = [Path(r) for r in runs]
    src = files[0] if len(files) == 1 and files[0].is_dir() else files
    precision = click.get_current_context().find_root().params.get("score_precision") or "float32"
    return Collection.from_trec(src, qrels, depth=depth, on_missing_topic=on_missing_topic,
                                score_precision=precision)


def _ranked(measure: M.Measure, depth: int, rel_binary: np.ndarray, progress: bool) -> np.ndarray:
    from .enumeration import scale

    sc = scale(measure, depth, progress=progress)
    return np.asarray(sc.phi_runs(rel_binary), dtype=float)


def _emit(frame: pd.DataFrame, fmt: str, output: str | None) -> None:
    if fmt == "table":
        text = frame.to_string(index=False, float_format=lambda x: f"{x:.6g}")
    else:
        text = frame.to_csv(index=False, sep="," if fmt == "csv" else "\t", float_format="%.10g")
    if output:
        Path(output).write_text(text if text.endswith("\n") else text + "\n")
    else:
        click.echo(text.rstrip("\n"))


_runs_arg = click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True))
_qrels_opt = click.option("--qrels", required=True, type=click.Path(exists=True, dir_okay=False),
                          help="qrels file (topic iter docno grade)")
_depth_opt = click.option("--depth", default=30, show_default=True, type=click.IntRange(1, 64),
                          help="run length N: runs are cut at N, shorter runs padded (FFF21 §5.1)")
_fmt_opt = click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
_out_opt = click.option("--output", "-o", type=click.Path(dir_okay=False), help="write to a file")
_missing_opt = click.option("--on-missing-topic", type=click.Choice(["error", "skip"]), default="error",
                            show_default=True, help="a run topic absent from the qrels")
_progress_opt = click.option("--progress/--no-progress", default=None,
                             help="progress bars for long enumerations (default: when a terminal)")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="irscales")
@click.option("--score-precision", type=click.Choice(["float32", "float64"]), default="float32", show_default=True,
              help="precision in which run scores are compared before docno breaks ties: float32 as "
                   "trec_eval <= 9 and pytrec_eval, float64 as trec_eval >= 10 (give it before the subcommand)")
def main(score_precision: str) -> None:
    """Measurement theory of IR evaluation on your own runs (see the README)."""


@main.command()
@_runs_arg
@_qrels_opt
@_depth_opt
@click.option("--measures", "measure_names", default="AP,nDCG_b02,RR", show_default=True,
              help="comma-separated measure names (paper keys like RBP_p08 or forms like RBP(p=0.8))")
@click.option("--per-topic/--means-only", default=True, show_default=True)
@_fmt_opt
@_out_opt
@_missing_opt
@_progress_opt
@_guard
def scores(runs, qrels, depth, measure_names, per_topic, fmt, output, on_missing_topic, progress):
    """Scores of each measure and of its interval-scaled version (FFF21 §5), per topic and mean.

    RUNS are TREC run files or one directory of them. The ranked value of a run is φ of its score
    (FFF21 eq. 2, ties 'unq') over all 2^N binary runs of length N; relevance is lenient binary.
    """
    ms = _measures(measure_names)
    col = _collection(runs, qrels, depth, on_missing_topic)
    rel = col.binary(depth)
    rows = []
    for m in ms:
        orig = col.evaluate(m, depth)
        rank = _ranked(m, depth, rel, progress)
        for s, sys_name in enumerate(col.systems):
            if per_topic:
                for t, topic in enumerate(col.topics):
                    rows.append((sys_name, topic, m.key, orig[s, t], rank[s, t]))
            rows.append((sys_name, "all", m.key, orig[s].mean(), rank[s].mean()))
    frame = pd.DataFrame(rows, columns=["system", "topic", "measure", "value", "ranked"])
    _emit(frame, fmt, output)


@main.command()
@click.argument("run_a", type=click.Path(exists=True, dir_okay=False))
@click.argument("run_b", type=click.Path(exists=True, dir_okay=False))
@_qrels_opt
@_depth_opt
@click.option("--measure", "measure_name", default="AP", show_default=True)
@click.option("--alpha", default=0.05, show_default=True, type=click.FloatRange(0, 1, min_open=True, max_open=True))
@_fmt_opt
@_out_opt
@_missing_opt
@_progress_opt
@_guard
def compare(run_a, run_b, qrels, depth, measure_name, alpha, fmt, output, on_missing_topic, progress):
    """Two runs: FFF21 §7.3 paired tests on the original and the ranked measure, side by side.

    Does the verdict change when the measure is mapped to an interval scale? The last lines give
    MM23's IPSO counts of B against A and the IPSO sign test.
    """
    from . import significance as S
    from .corroboration import ipso_sign_test

    m = M.parse(measure_name)
    col = _collection([run_a, run_b], qrels, depth, on_missing_topic)
    if len(col.systems) != 2:
        raise ValueError(f"expected two runs with different run tags, found systems {list(col.systems)}")
    orig = col.evaluate(m, depth).T  # (T, 2)
    rank = _ranked(m, depth, col.binary(depth), progress).T
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
        click.echo(f"\n{m.key}@{depth}: mean {a} = {orig[:, 0].mean():.4f}, mean {b} = {orig[:, 1].mean():.4f}; "
                   f"ranked means {rank[:, 0].mean():.2f}, {rank[:, 1].mean():.2f}")
        click.echo(f"IPSO {b} vs {a}: = {ip.equal}, ni {ip.ni}, ns {ip.ns}, non-separable {ip.nonseparable}; "
                   f"IPSO sign test p = {ip.pvalue:.4g}")


@main.command()
@click.option("--measure", "measure_name", required=True, help="e.g. DCG_b02, RBP_p08, AP")
@click.option("--depth", required=True, type=click.IntRange(1, 40), help="run length N")
@click.option("--cache/--no-cache", default=True, show_default=True)
@_progress_opt
@_guard
def scale(measure_name, depth, cache, progress):
    """The scale of a measure over all 2^N binary runs: size, ties and where its cache lives."""
    from .enumeration import scale as make_scale

    m = M.parse(measure_name)
    sc = make_scale(m, depth, cache=cache, progress=progress)
    click.echo(f"measure      {m.key}  ({m!r})")
    click.echo(f"run length   N = {depth}: {sc.n_runs:,} runs")
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
@_runs_arg
@_qrels_opt
@_depth_opt
@click.option("--measures", "measure_names", default=",".join(M.FFF21_MEASURES), show_default=True)
@_fmt_opt
@_out_opt
@_missing_opt
@_progress_opt
@_guard
def correlate(runs, qrels, depth, measure_names, fmt, output, on_missing_topic, progress):
    """Kendall τ (FFF21 §3.3) and τ_AP (Fer17 eq. 2) among measures, original and ranked.

    Systems are ranked by their mean score over topics; τ_AP is symmetric (average of both
    directions). Needs at least three runs.
    """
    from .correlation import kendall_tau, tau_ap_symmetric

    ms = _measures(measure_names)
    col = _collection(runs, qrels, depth, on_missing_topic)
    if len(col.systems) < 3:
        raise ValueError(f"correlation needs at least 3 runs, got {len(col.systems)}")
    rel = col.binary(depth)
    means = {m.key: col.evaluate(m, depth).mean(1) for m in ms}
    rmeans = {m.key: _ranked(m, depth, rel, progress).mean(1) for m in ms}
    rows = []
    for a, b in combinations([m.key for m in ms], 2):
        row = {"measure_a": a, "measure_b": b, "tau": float(kendall_tau(means[a], means[b])),
               "tau_ranked": float(kendall_tau(rmeans[a], rmeans[b]))}
        try:
            row["tau_ap"] = float(tau_ap_symmetric(means[a], means[b]))
            row["tau_ap_ranked"] = float(tau_ap_symmetric(rmeans[a], rmeans[b]))
        except ValueError:  # τ_AP is undefined with tied system means
            row["tau_ap"] = row["tau_ap_ranked"] = float("nan")
        rows.append(row)
    _emit(pd.DataFrame(rows), fmt, output)


@main.command()
@click.argument("run_a", type=click.Path(exists=True, dir_okay=False))
@click.argument("run_b", type=click.Path(exists=True, dir_okay=False))
@click.argument("qrels", type=click.Path(exists=True, dir_okay=False))
@click.option("--depth", default=10, show_default=True, type=click.IntRange(1, 10_000))
@click.option("--metric", "measure_name", default="AP", show_default=True)
@click.option("--test", type=click.Choice(["t", "wilcoxon", "sign"]), default="t", show_default=True)
@click.option("--alpha", default=0.05, show_default=True, type=click.FloatRange(0, 1, min_open=True, max_open=True))
@_missing_opt
@_guard
def ipso(run_a, run_b, qrels, depth, measure_name, test, alpha, on_missing_topic):
    """MM23 §3: is challenger RUN_B better than champion RUN_A? Metric test (†) + IPSO sign test (‡)."""
    from .corroboration import corroborate

    m = M.parse(measure_name)
    col = _collection([run_a, run_b], qrels, depth, on_missing_topic)
    if len(col.systems) != 2:
        raise ValueError(f"expected two runs with different run tags, found systems {list(col.systems)}")
    rel = col.rel_at(depth)
    graded = getattr(m, "gains", "binary") == "graded"
    use = rel if graded else col.binary(depth)
    ideal = col.ideal(depth) if graded else None
    res = corroborate(use[0], use[1], m, depth, rb=col.rb, ideal=ideal, test=test, alpha=alpha)
    click.echo(f"A = {col.systems[0]}   B = {col.systems[1]}   topics = {len(col.topics)}")
    for line in res.lines():
        click.echo(line)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

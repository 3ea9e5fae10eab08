"""End-to-end benchmark: TREC files → per-topic values, irscales vs pytrec_eval (issue 18); prints a
markdown table.

Runs shaped like the 120 CACM runs of the issue (52 topics × 1,000 documents each, 6.2M run lines) are
generated in code, with random documents from a 3,204-document corpus, random scores (one in five tied
with its neighbour) and ~15 relevant documents per topic: **random runs, not real ones**. Both sides
start from the same files on disk and end with per-topic values of the same measures (AP, P@10,
nDCG@1000, RR, R@1000), checked to agree:

- irscales: ``Collection.from_trec(runs, qrels, depth=1000)`` then ``Collection.evaluate``, four
  ways: without the cache of parsed runs (``cache=False``) on one thread and on
  ``trec_cache.READ_THREADS`` threads, first read (parse + write the cache, in a fresh folder) and a later
  read of the same files (cache hit: read + SHA-256 + load);
- pytrec_eval: its own readers ``pytrec_eval.parse_run`` / ``parse_qrel`` (what its README shows)
  then ``RelevanceEvaluator.evaluate`` per run.

The figure of merit is pytrec_eval's time over ours, end to end (reading the files included).

Usage: python benchmarks/bench_trec_input.py [--runs 120] [--topics 52] [--depth 1000] [--quick]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def _t(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def generate(directory: Path, runs: int, topics: int, depth: int, corpus: int = 3204, seed: int = 0):
    """Random TREC runs and qrels with the shape of the CACM runs (simulated, written to ``directory``)."""
    rng = np.random.default_rng(seed)
    rundir = directory / "runs"
    rundir.mkdir(parents=True, exist_ok=True)
    docs = np.char.add("CACM-", np.arange(1, corpus + 1).astype(str))
    tnames = np.arange(1, topics + 1).astype(str)
    with open(directory / "qrels.txt", "w") as fh:
        for t in tnames:
            judged = rng.choice(corpus, size=60, replace=False)
            rel = (np.arange(60) < rng.integers(5, 30)).astype(int)
            fh.writelines(f"{t} 0 {docs[d]} {r}\n" for d, r in zip(judged, rel))
    for s in range(runs):
        lines = []
        for t in tnames:
            pick = docs[rng.choice(corpus, size=depth, replace=False)]
            score = np.sort(np.round(rng.random(depth) * 40, 4))[::-1]
            tie = rng.random(depth) < 0.2
            score[1:][tie[1:]] = score[:-1][tie[1:]]
            rank = np.arange(1, depth + 1).astype(str)
            lines.append("\n".join(f"{t} Q0 {d} {r} {x:.4f} sim{s:03d}" for d, r, x in zip(pick, rank, score)))
        (rundir / f"input.sim{s:03d}").write_text("\n".join(lines) + "\n")
    return rundir, directory / "qrels.txt"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=120)
    ap.add_argument("--topics", type=int, default=52)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--quick", action="store_true", help="20 runs (for benchmarks/run.py --quick)")
    args = ap.parse_args(argv)
    if args.quick:
        args.runs = min(args.runs, 20)

    import resource

    import pytrec_eval

    from irscales.data import _trec_cache as trec_cache
    from irscales.data.collection import Collection
    from irscales.measures import AP, NDCG, RR, P, R

    N = args.depth
    load0 = os.getloadavg()[0]
    ours = {"map": AP(), "P_10": P(k=10), f"ndcg_cut_{N}": NDCG(discount="log2p1", gains="graded"),
            "recip_rank": RR(), f"recall_{N}": R()}
    rows = []
    with tempfile.TemporaryDirectory(prefix="irscales-bench-") as tmp:
        (rundir, qrels), dt, _ = _t(lambda: generate(Path(tmp), args.runs, args.topics, N))
        files = sorted(rundir.iterdir())
        nlines = sum(1 for f in files for _ in open(f))
        rows.append((f"generate {args.runs} random runs ({nlines:,} lines; setup)", dt, float("nan")))

        def irscales_all(cache, threads):
            trec_cache.READ_THREADS, default = threads, trec_cache.READ_THREADS
            try:
                c = Collection.from_trec(rundir, qrels, depth=N, cache=cache)
            finally:
                trec_cache.READ_THREADS = default
            return c, {k: c.evaluate(m) for k, m in ours.items()}

        cache = Path(tmp) / "parsed-runs"
        timings = {}
        threads = trec_cache.READ_THREADS
        for label, arg, th in (("no cache, 1 thread", False, 1), (f"no cache, {threads} threads", False, threads),
                               (f"first read, writes the cache, {threads} threads", cache, threads),
                               (f"cache hit, {threads} threads", cache, threads)):
            (col, vals), t_ir, c_ir = _t(lambda: irscales_all(arg, th))
            timings[label] = (t_ir, c_ir)
            rows.append((f"irscales: read + evaluate 5 measures ({label})", t_ir, c_ir))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
        size = sum(f.stat().st_size for f in cache.iterdir()) / 2**20
        runs_mb = sum(f.stat().st_size for f in files) / 2**20

        def pytrec_all():
            with open(qrels) as fh:
                qd = pytrec_eval.parse_qrel(fh)
            ev = pytrec_eval.RelevanceEvaluator(qd, {"map", "P_10", f"ndcg_cut_{N}", "recip_rank", f"recall_{N}"})
            out = {}
            for f in files:
                with open(f) as fh:
                    out[f.name.removeprefix("input.")] = ev.evaluate(pytrec_eval.parse_run(fh))
            return out

        ref, t_py, c_py = _t(pytrec_all)
        rows.append(("pytrec_eval: parse_run/parse_qrel + evaluate", t_py, c_py))
        worst = 0.0
        for k, v in vals.items():
            for si, s in enumerate(col.systems):
                for ti, t in enumerate(col.topics):
                    worst = max(worst, abs(v[ti, si] - ref[s][t][k]))
        if worst > 1e-12:
            print(f"ERROR: irscales and pytrec_eval differ by {worst:g}", file=sys.stderr)
            return 1

    print(f"TREC input end to end (random CACM-shaped runs: {args.runs} runs x {args.topics} topics x "
          f"{N} documents); {platform.python_implementation()} {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, load average {load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end\n")
    print("| step | wall s | CPU s |")
    print("|---|---:|---:|")
    for name, sec, cpu in rows:
        print(f"| {name} | {sec:.2f} | {cpu:.2f} |")
    print(f"\nratio pytrec_eval / irscales end to end (values agree to {worst:.1g}):")
    for label, (t_ir, c_ir) in timings.items():
        print(f"- {label}: {t_py / t_ir:.1f}x wall, {c_py / c_ir:.1f}x CPU")
    print(f"\ncache of parsed runs: {size:.0f} MiB for {runs_mb:.0f} MiB of run files; peak resident size "
          f"after the irscales reads (generation included): {peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

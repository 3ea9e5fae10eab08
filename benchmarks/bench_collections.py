"""Benchmark of the collections layer (issue 7 item 5); prints a markdown table.

On the simulated Grid of Points (sim-gop), T13+T14+T15 topics: 1,326 systems x 149 topics, depth 30.

1. simulate the collection, export it as 1,326 TREC run files + qrels (setup, timed for information);
2. build the [system, topic, rank] arrays from the TREC files (``Collection.from_trec``);
3. the 11 FFF21 measures (FFF21 §6) over the arrays at N = 30;
4. pytrec_eval (trec_eval's C code) on the same runs for the measures trec_eval has
   (P_30, recall_30, map_cut_30, recip_rank, ndcg_cut_30), and ours for the same five;
   the ratio pytrec_eval time / our time is the figure of merit.

Usage: python benchmarks/bench_collections.py [--systems 1326] [--depth 30] [--seed 0] [--quick]
All data are simulated; timings are wall-clock on the machine that runs it.
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
    """Wall-clock seconds (the reported figure); process CPU seconds of the last call are kept in
    ``_t.last_cpu`` for reading results on a loaded machine."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    _t.last_cpu = time.process_time() - c0
    return out, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", type=int, default=1326, help="number of GoP systems (first n)")
    ap.add_argument("--depth", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-pytrec", action="store_true", help="do not time pytrec_eval")
    ap.add_argument("--quick", action="store_true", help="100 systems only (for benchmarks/run.py --quick)")
    args = ap.parse_args(argv)
    if args.quick:
        args.systems = min(args.systems, 100)

    import pytrec_eval

    from irscales.data import trec as io
    from irscales.data import Collection, load_preset
    from irscales.measures import AP, CLASSIC_MEASURES, NDCG, RR, P, R

    N = args.depth
    rows: list[tuple[str, float, float, str]] = []
    gop, dt = _t(lambda: load_preset("sim-gop", depth=N, seed=args.seed))
    rows.append(("simulate sim-gop (1,326 systems x 349 topics)", dt, _t.last_cpu, "setup"))
    c = gop.where(track=["T13", "T14", "T15"]).subset(systems=range(args.systems))
    S, T, _ = c.shape

    with tempfile.TemporaryDirectory(prefix="irscales-bench-") as tmp:
        (rundir, qrels), dt = _t(lambda: c.to_trec(tmp))
        rows.append((f"export as TREC files ({S} runs)", dt, _t.last_cpu, "setup"))
        nlines = S * T * N
        back, t_read = _t(lambda: Collection.from_trec(rundir, qrels, depth=N))
        c_read = _t.last_cpu
        rows.append((f"read TREC files -> [system, topic, rank] arrays ({nlines:,} run lines)", t_read,
                     _t.last_cpu, "figure 1"))
        back = back.subset(topics=list(c.topics), systems=list(c.systems))
        if not np.array_equal(back.rel_at(), c.rel_at()):
            print("ERROR: arrays read back differ from the simulated ones", file=sys.stderr)
            return 1

        def all11():
            return {k: back.evaluate(m) for k, m in CLASSIC_MEASURES.items()}

        vals, t11 = _t(all11)
        rows.append(("11 FFF21 measures over the arrays (irscales)", t11, _t.last_cpu, "figure 2"))

        five = {"P_30": P(k=N), "recall_30": R(), "map_cut_30": AP(), "recip_rank": RR(),
                "ndcg_cut_30": NDCG(discount="log2p1", gains="graded")}
        ours5, t5 = _t(lambda: {k: back.evaluate(m) for k, m in five.items()})
        c5 = _t.last_cpu
        rows.append(("5 trec_eval measures (irscales)", t5, _t.last_cpu, ""))

        if not args.skip_pytrec:
            def load_dicts():
                q = io.read_qrels(qrels)
                qd: dict = {}
                for t, d, r in q[["topic", "docno", "rel"]].itertuples(index=False):
                    qd.setdefault(t, {})[d] = int(r)
                runs = {}
                for f in io.find_runs(rundir):
                    run = io.read_run(f)
                    rd: dict = {}
                    for t, d, s in run[["topic", "docno", "score"]].itertuples(index=False):
                        rd.setdefault(t, {})[d] = float(s)
                    runs[run.attrs["system"]] = rd
                return qd, runs

            (qd, runs), t_dicts = _t(load_dicts)
            rows.append(("pytrec_eval input: TREC files -> dicts", t_dicts, _t.last_cpu, ""))
            names = {f"P_{N}", f"recall_{N}", f"map_cut_{N}", "recip_rank", f"ndcg_cut_{N}"}

            def run_pytrec():
                ev = pytrec_eval.RelevanceEvaluator(qd, names)
                return {s: ev.evaluate(r) for s, r in runs.items()}

            ref, t_py = _t(run_pytrec)
            c_py, c_dicts = _t.last_cpu, rows[-1][2]
            rows.append(("5 trec_eval measures (pytrec_eval)", t_py, _t.last_cpu, ""))
            # sanity: same numbers
            si, ti = S // 2, T // 2
            for k, v in ours5.items():
                key = k if k != "recip_rank" else "recip_rank"
                key = key.replace("_30", f"_{N}")
                if abs(v[ti, si] - ref[c.systems[si]][c.topics[ti]][key]) > 1e-12:
                    print(f"ERROR: {k} differs from pytrec_eval", file=sys.stderr)
                    return 1

    print(f"Collections benchmark (simulated sim-gop T13-T15: {S} systems x {T} topics, depth {N}); "
          f"{platform.python_implementation()} {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, numpy {np.__version__}\n")
    print("| step | wall s | CPU s | note |")
    print("|---|---:|---:|---|")
    for name, sec, cpu, note in rows:
        print(f"| {name} | {sec:.2f} | {cpu:.2f} | {note} |")
    if not args.skip_pytrec:
        print(f"\nratio pytrec_eval / irscales, same 5 measures, evaluation only: {t_py / t5:.0f}x wall, "
              f"{c_py / max(c5, 1e-9):.0f}x CPU; including reading the files: "
              f"{(t_py + t_dicts) / (t5 + t_read):.1f}x wall, {(c_py + c_dicts) / (c5 + c_read):.1f}x CPU")
        print("(CPU seconds are the better guide when other processes share the machine)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

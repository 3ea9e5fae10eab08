"""Interval values at N = 1000 where 1 % is out of reach (issue 51 items 3 and 4, "done when"):

* ``ap``: ``evaluate(..., "AP", depth=1000, ranked=True, ties="mid", max_rel_error=1.0)`` on the 10 Robust 2004 runs
  (``$IRSCALES_SHARED/trec/R04-partial``, official qrels) restricted to their first 50 topics (qrels of topics
  301–350 only: the runs' other topics are skipped), 500 values; ``--max-rel-error`` sets another target;
* ``ndcg``: ``evaluate(..., "nDCG@1000", ranked=True, ties="mid")`` on the first 10 TREC-8 runs (``trec/T08``,
  binary qrels, 50 topics), which raised OverflowError before (the count reaches 2^1000 at 1000 binary ranks).

Each in its own process: wall and CPU seconds of the ``evaluate`` call (the parsed-run cache and the kernels warmed
by a first call), the process's peak memory, and ``scale_table()``'s route, exact and achieved max_rel_error.

    IRSCALES_SHARED=/work/shared python benchmarks/bench_deep.py ap ndcg
    IRSCALES_SHARED=/work/shared python benchmarks/bench_deep.py ap --max-rel-error 0.62
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path


def _shared() -> Path:
    return Path(os.environ.get("IRSCALES_SHARED", "/work/shared")) / "trec"


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cell(which: str, rel_error: float) -> dict:
    """One measurement in this process."""
    from irscales import evaluate
    from irscales.data.trec import read_qrels

    if which == "ap":
        folder = _shared() / "R04-partial"
        qrels = read_qrels(folder / "qrels.robust2004.txt.gz")
        first = sorted(qrels.topic.unique(), key=int)[:50]
        qrels, runs = qrels[qrels.topic.isin(first)], sorted((folder / "runs").iterdir())
        args = dict(measures="AP", depth=1000, ties="mid", max_rel_error=rel_error)
        warm = dict(measures="AP", depth=20, ties="mid")
    else:
        folder = _shared() / "T08"
        qrels, runs = folder / "qrels.trec8.adhoc.gz", sorted((folder / "runs").iterdir())[:10]
        args = dict(measures="nDCG@1000", ties="mid", max_rel_error=rel_error)
        warm = dict(measures="nDCG@10", ties="mid")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        evaluate(qrels, runs, ranked=True, **warm)  # parsed-run cache and kernels, outside the timing
        t, c = time.perf_counter(), _cpu()
        ev = evaluate(qrels, runs, ranked=True, **args)
        wall, cpu = time.perf_counter() - t, _cpu() - c
    row = ev.scale_table().iloc[0]
    return {"which": which, "values": int(ev.interval(row.measure).size), "wall": wall, "cpu": cpu,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "route": row.route,
            "exact": bool(row.exact), "max_rel_error": float(row.max_rel_error), "bracket": row.bracket,
            "target": rel_error, "load": os.getloadavg()[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("which", nargs="+", choices=("ap", "ndcg"))
    ap.add_argument("--max-rel-error", type=float, default=None, help="default: 1.0 for ap, 0.01 for ndcg")
    ap.add_argument("--cell", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.cell:
        print(json.dumps(cell(args.which[0], args.max_rel_error)))
        return
    print("| measurement | values | wall s | CPU s | peak MB | route | exact | target | max_rel_error | load |")
    print("|---|---:|---:|---:|---:|---|---|---:|---:|---:|")
    for which in args.which:
        e = args.max_rel_error if args.max_rel_error is not None else (1.0 if which == "ap" else 0.01)
        proc = subprocess.run([sys.executable, __file__, which, "--max-rel-error", str(e), "--cell"],
                              capture_output=True, text=True)
        if proc.returncode:
            print(f"| {which} | failed: {proc.stderr.strip().splitlines()[-1][:300]} |", flush=True)
            continue
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        print(f"| {which} | {r['values']} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['peak_mb']:.0f} | {r['route']} | "
              f"{r['exact']} | {r['target']:g} | {r['max_rel_error']:.4f} | {r['load']:.1f} |", flush=True)


if __name__ == "__main__":
    main()

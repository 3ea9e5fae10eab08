"""Interval values at the cut-offs researchers report (issue 42, "done when"): ``evaluate(..., ranked=True)`` on the
10 Robust 2004 runs × 249 topics (``$IRSCALES_SHARED/trec/R04-partial``, official qrels, grades 0–2) for AP,
RBP_p08, RR, P@N and trec_eval's graded nDCG@N at N = 20, 30, 50, 100, and AP, RBP_p08, RR at N = 1000.

Ties ``unq`` (FFF21 eq. 2) everywhere except AP beyond N = 24, where distinct AP values have neither an exact
route nor a bracket: there ties ``mid`` (reported in the ``ties`` column). Each cell runs in its own process
(peak memory = that process's maximum resident set); ``seconds`` is the wall time of the ``evaluate`` call
(runs read from the parsed-run cache, warmed by a first call). Prints a markdown table and the total.

    IRSCALES_SHARED=/work/shared python benchmarks/bench_cutoffs.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

CELLS = [(N, m) for N in (20, 30, 50, 100) for m in ("AP", "RBP_p08", "RR", f"P@{N}", f"nDCG@{N}")] \
    + [(1000, m) for m in ("AP", "RBP_p08", "RR")]
AP_UNQ_MAX_N = 24  # irscales.enumeration.counting: φ_unq of AP exact by deduplication to here


def _data() -> tuple[Path, Path]:
    root = Path(os.environ.get("IRSCALES_SHARED", "/work/shared")) / "trec" / "R04-partial"
    return root / "runs", root / "qrels.robust2004.txt.gz"


def cell(N: int, measure: str) -> dict:
    """One cell, in this process: time, route, exactness and the achieved error of ``evaluate``."""
    import resource
    import warnings

    from irscales import evaluate

    runs, qrels = _data()
    ties = "mid" if measure == "AP" and N > AP_UNQ_MAX_N else "unq"
    t = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = evaluate(qrels, runs, measure, depth=N, ranked=True, ties=ties)
        row = ev.scale_table().iloc[0]
        out = {"route": row.route, "exact": bool(row.exact), "max_rel_error": float(row.max_rel_error),
               "values": int(ev.interval(measure).size), "wide": [n for n in ev.notes if "bracketed wider" in n]}
    except ValueError as e:
        out = {"route": "refused", "exact": None, "max_rel_error": None, "values": 0, "why": str(e)[:400]}
    out.update(N=N, measure=measure, ties=ties, seconds=time.perf_counter() - t,
               peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return out


def main() -> None:
    runs, qrels = _data()
    if not qrels.is_file():
        sys.exit(f"no Robust 2004 data at {qrels.parent} (set IRSCALES_SHARED)")
    if len(sys.argv) == 3:  # a child: one cell
        print(json.dumps(cell(int(sys.argv[1]), sys.argv[2])))
        return
    subprocess.run([sys.executable, __file__, "20", "RR"], check=True, capture_output=True)  # parse cache, kernels
    print("| N | measure | ties | seconds | peak MB | route | exact | max_rel_error | values |")
    print("|---:|---|---|---:|---:|---|---|---:|---:|")
    total, wall, rows = 0.0, time.perf_counter(), []
    for N, m in CELLS:
        proc = subprocess.run([sys.executable, __file__, str(N), m], capture_output=True, text=True, timeout=900)
        if proc.returncode:
            print(f"| {N} | {m} | | | | failed: {proc.stderr.strip().splitlines()[-1][:200]} | | | |", flush=True)
            continue
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        rows.append(r)
        total += r["seconds"]
        err = "" if r["max_rel_error"] is None else f"{r['max_rel_error']:.4f}"
        print(f"| {N} | {m} | {r['ties']} | {r['seconds']:.1f} | {r['peak_mb']:.0f} | {r['route']} | {r['exact']} | "
              f"{err} | {r['values']} |", flush=True)
    print(f"\ntotal of the evaluate calls: {total:.0f} s; wall time with one process per cell: "
          f"{time.perf_counter() - wall:.0f} s; load average {os.getloadavg()[0]:.1f}")
    for r in rows:
        if r["route"] == "refused":
            print(f"- N = {r['N']}, {r['measure']} (ties {r['ties']}): refused: {r['why']}")
        for n in r.get("wide", []):
            print(f"- N = {r['N']}: {n}")


if __name__ == "__main__":
    main()

"""Benchmark Fer17's RQ1 design (§4.1) end to end on the simulated GoP; prints a markdown table.

Run: ``.venv/bin/python benchmarks/bench_fer17.py`` (full design: 7 topic sizes × 10 system sizes ×
H = 100 samples on the 1,326 simulated GoP systems and the 149 topics of T13–T15; 21 measure pairs, so
147,000 τ and 147,000 τ_AP values — Fer17's 28 pairs give 196,000; time scales with the pairs).
``--quick``: 100 systems' worth of the design (topic sizes 10, 50; system sizes 10, 100; H = 20).
``--no1q``: also the RQ2 no1Q variant on the same samples.

Goal (issue 9): full RQ1 ≤ 10 min on 2 cores; each ANOVA fit in seconds. Timings only, simulated data.
Both wall-clock and CPU seconds of this process are printed: the kernels are single-threaded numpy, so on a
shared machine the CPU time is the figure to compare.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from irscales.stats import _anova as anova
from irscales import data as collections
from irscales.papers import fer17
from irscales.papers.fer17 import sampling


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    no1q = "--no1q" in argv
    t0 = time.perf_counter()
    col = collections.load_preset("sim-gop", depth=100, seed=0)
    t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    rq1 = col.where(track=["T13", "T14", "T15"])
    scores = fer17.labelled(fer17.score_matrices(rq1))
    t_scores = time.perf_counter() - t0
    tsizes = (10, 50) if quick else sampling.TOPIC_SIZES
    ssizes = (10, 100) if quick else sampling.SYSTEM_SIZES
    h = 20 if quick else sampling.N_SAMPLES
    rows = []
    t_design = 0.0
    parts = []
    # one call per system size, to show where the time goes (τ_AP is O(s²) per ranking pair)
    rng = np.random.default_rng(20170601)
    c_design = 0.0
    for s in ssizes:
        t0, c0 = time.perf_counter(), time.process_time()
        parts.append(sampling.correlation_design(scores, rng, tsizes, (s,), h, no1q=no1q, progress=False))
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        t_design += dt
        c_design += dc
        rows.append(f"| s = {s} | {len(parts[-1]):,} | {dt:.1f} | {dc:.1f} |")
        print(rows[-1], file=sys.stderr, flush=True)
    import pandas as pd

    data = pd.concat(parts, ignore_index=True)
    allq = data[data.variant == "allQ"]
    c0 = time.process_time()
    tab = anova.balanced_anova(allq, "tau", anova.CROSSED_TERMS)
    t_anova = time.process_time() - c0
    c0 = time.process_time()
    anova.balanced_anova(allq, "tau_ap", anova.CROSSED_TERMS)
    t_anova2 = time.process_time() - c0
    print(f"simulated sim-gop: {len(col.systems)} systems, RQ1 pool T13-T15 {len(rq1.topics)} topics; "
          f"topic sizes {list(tsizes)}, system sizes {list(ssizes)}, H = {h}, "
          f"{len(fer17.MEASURE_NAMES)} measures ({len(sampling.measure_pairs(fer17.MEASURE_NAMES))} pairs)"
          f"{', with no1Q' if no1q else ''}\n")
    print(f"load preset {t_load:.1f} s; score matrices (7 measures) {t_scores:.1f} s\n")
    print("| design part | τ values (+ τ_AP each) | wall s | CPU s |\n|---|---|---|---|")
    print("\n".join(rows))
    print(f"| **all** | **{len(data):,}** | **{t_design:.1f}** | **{c_design:.1f}** |\n")
    print(f"balanced_anova eq. (8) on {len(allq):,} values (CPU): τ {t_anova:.2f} s, τ_AP {t_anova2:.2f} s "
          f"(error DF {int(tab.loc['Error', 'DF']):,})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""Benchmark of φ by counting (issue 20): RBP_p08 at N = 50 for 129 systems × 50 topics; DCG_b02
at N = 30 (129 × 50) and N = 40 (2 × 50: about 0.1 s per run).

The runs are simulated here (seeded uniform binary runs: every rank relevant with probability 1/2,
which puts the values in the middle of the scale, where the meet-in-the-middle window is widest —
the worst case for the count). No scale exists at N = 50 (the engine stops at N = 40; it would be
2^50 runs). Prints a markdown table: wall and CPU seconds of building the half tables and of the
counts, and the load average before the run.

    python benchmarks/bench_counting.py            # N = 50, 129 × 50 runs
    python benchmarks/bench_counting.py --quick    # N = 40, 129 × 50 runs
    python benchmarks/bench_counting.py --t08      # + DCG_b02 at N = 50 on all real TREC-8 runs (~1 min)

DCG_b02 at N = 50 runs on 2 × 50 simulated runs by default; ``--t08`` counts it for every run of the real
TREC-8 collection (129 × 50, needs <IRSCALES_SHARED>/trec/T08); the exactness tests are in
tests/test_counting.py.
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np


def _cpu() -> float:
    return sum(getattr(resource.getrusage(w), f) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for f in ("ru_utime", "ru_stime"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--N", type=int, default=None)
    ap.add_argument("--systems", type=int, default=129)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--t08", action="store_true", help="DCG_b02 at N = 50 on all real TREC-8 runs")
    a = ap.parse_args()
    N = a.N or (40 if a.quick else 50)

    from irscales import measures as M
    from irscales.enumeration import counting as C
    from irscales.enumeration import meet
    from irscales.exact import to_fraction

    m = M.RBP(p=0.8)
    rng = np.random.default_rng(20)
    rel = rng.integers(0, 2, (a.systems, a.topics, N), dtype=np.int8)  # simulated runs
    load = os.getloadavg()[0]
    f = to_fraction(m.p)
    t, c = time.perf_counter(), _cpu()
    h = meet.split(N, a.systems * a.topics)
    meet.half_table(f.numerator, f.denominator, h)
    meet.half_table(f.numerator, f.denominator, N - h)
    t_tab, c_tab = time.perf_counter() - t, _cpu() - c
    t, c = time.perf_counter(), _cpu()
    phi = C.phi_runs(m, rel, workers=a.workers)
    t_cnt, c_cnt = time.perf_counter() - t, _cpu() - c
    assert phi.shape == (a.systems, a.topics) and phi.min() >= 1 and phi.max() <= 2**N
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"load average before: {load:.2f}; peak resident memory of the driver: {peak:.1f} GB\n")
    print("| step | runs | wall s | CPU s | goal |")
    print("|---|---:|---:|---:|---|")
    print(f"| half tables (2^{h} + 2^{N - h} exact keys, sorted) | — | {t_tab:.2f} | {c_tab:.2f} | |")
    print(f"| φ of simulated runs, {m.key}, N = {N}, {a.systems} × {a.topics} | {rel.shape[0] * rel.shape[1]:,} "
          f"| {t_cnt:.2f} | {c_cnt:.2f} | |")
    tot = t_tab + t_cnt
    print(f"| **total** | | **{tot:.2f}** | {c_tab + c_cnt:.2f} | ≤ 60 s {'✔' if tot <= 60 else '✘'} |")
    # DCG_b02: the window of the meet in the middle is most of the top table (weights decay slowly)
    dcg = M.parse("DCG_b02")
    for n, systems in ([(24, a.systems)] if a.quick else [(30, a.systems), (40, 2), (50, 2)]):
        r = rng.integers(0, 2, (systems, a.topics, n), dtype=np.int8)
        t, c = time.perf_counter(), _cpu()
        C.phi_runs(dcg, r)
        w, cpu = time.perf_counter() - t, _cpu() - c
        k = systems * a.topics
        print(f"| φ of simulated runs, DCG_b02, N = {n}, {systems} × {a.topics} ({1000 * w / k:.1f} ms per run) "
              f"| {k:,} | {w:.2f} | {cpu:.2f} | |")
    if a.t08:
        from irscales import paths
        from irscales.data.collection import Collection
        from irscales.enumeration import _fixed_count as FC

        d = paths.shared_dir() / "trec" / "T08"
        col = Collection.from_trec(d / "runs", d / "qrels.trec8.adhoc.gz", depth=50)
        rel = col.binary(50)
        canon = np.unique(np.concatenate([rel[..., :2].sum(-1, keepdims=True), rel[..., 2:]], -1).reshape(-1, 49), axis=0)
        Lb = FC.bottom_ranks(48, 3 * len(canon))
        W = FC.fixed_weights(2, 3, 50, FC.frac_bits(15.0))
        t, c = time.perf_counter(), _cpu()
        FC.sorted_sums(W[:48 - Lb]), FC.bottom_table(W[48 - Lb:])  # what the count builds (timed alone here)
        w_tab, c_tab = time.perf_counter() - t, _cpu() - c
        t, c = time.perf_counter(), _cpu()
        C.phi_runs(dcg, rel)
        w, cpu = time.perf_counter() - t, _cpu() - c
        k = rel.shape[0] * rel.shape[1]
        print(f"| DCG_b02 tables alone (2^{48 - Lb} top + 2^{Lb} bottom int64 sums with the block index) | — "
              f"| {w_tab:.2f} | {c_tab:.2f} | |")
        print(f"| φ of real TREC-8 runs, DCG_b02, N = 50, 129 × 50, tables included ({len(canon):,} distinct "
              f"canonical runs; {1000 * w / k:.1f} ms per run) | {k:,} | {w:.2f} | {cpu:.2f} "
              f"| ≤ 60 s {'✔' if w <= 60 else '✘'} |")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
        print(f"\npeak resident memory of the driver after the TREC-8 count: {peak:.1f} GB")
        # the 11 FFF21 measures at N = 30 on the same runs, counted (no stored scale); AP counted for ties
        # min (its φ_unq needs the stored scale at N = 30: counting_depth says why)
        rel30 = col.binary(30)
        print("\n| measure, all real TREC-8 runs at N = 30 (129 × 50) | ties | wall s | CPU s |")
        print("|---|---|---:|---:|")
        for m in M.classic_measures().values():
            ties = "min" if C.counting_depth(m, ties="unq")[0] < 30 else "unq"
            t, c = time.perf_counter(), _cpu()
            C.phi_runs(m, rel30, ties)
            print(f"| {m.key} | {ties} | {time.perf_counter() - t:.2f} | {_cpu() - c:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Speed of the MM23 IPSO computations (issue 6, item 5); prints a markdown table.

    .venv/bin/python benchmarks/bench_ipso.py            # full: 10^9 Monte Carlo pairs
    .venv/bin/python benchmarks/bench_ipso.py --pairs 1e8  # fewer pairs; 10^9 time extrapolated

Rows: exhaustive enumeration of all 4^15 pairs at k = 15; the exact counting DP (and the closed
form) at k = 1000; Monte Carlo with uniform random pairs at k = 20, 50, 100 (prefixes of the same
pairs); and the per-pair Python loop shaped like the authors' reference code
(:func:`irscales.ipso.compare_reference`) against the vectorised :func:`irscales.ipso.compare` on
the same pairs, with the loop's time for 10^9 pairs extrapolated linearly from a sample.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import time

import numpy as np

from irscales import ipso


def _cpu() -> float:
    """CPU seconds of this process and its finished children (Monte Carlo workers)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + ch.ru_utime + ch.ru_stime


def timed(fn, *args, **kw):
    """(result, (wall seconds, CPU seconds)); on a busy machine the CPU time is the steadier one."""
    c, t = _cpu(), time.perf_counter()
    out = fn(*args, **kw)
    return out, (time.perf_counter() - t, _cpu() - c)


def scale(t: tuple[float, float], f: float) -> tuple[float, float]:
    return (t[0] * f, t[1] * f)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=float, default=1e9, help="Monte Carlo pairs (default 1e9)")
    ap.add_argument("--workers", type=int, default=ipso.default_workers(), help="processes for brute force and Monte Carlo")
    ap.add_argument("--loop-pairs", type=int, default=100_000, help="pairs timed with the per-pair loop")
    ap.add_argument("--seed", type=int, default=20230601)
    args = ap.parse_args()
    n_mc = int(args.pairs)
    rows = []

    ex, t_bf = timed(ipso.enumerate_counts, 15, workers=args.workers)
    ok = ex.row(15) == ipso.closed_form_counts(15)
    rows.append((f"brute force, all 4^15 = 1,073,741,824 pairs, k = 15 (all depths ≤ 15), {args.workers} processes", t_bf,
                 f"equals closed form: {ok}"))

    dp, t_dp = timed(ipso.count_categories, 1000)
    ok = dp.row(1000) == ipso.closed_form_counts(1000)
    rows.append(("counting DP, exact, k = 1000 (all depths ≤ 1000)", t_dp, f"equals closed form: {ok}"))
    _, t_cf = timed(ipso.closed_form_counts, 1000)
    rows.append(("closed form C(2k+1, k), k = 1000", t_cf, ""))

    rng = np.random.default_rng(args.seed)
    mc, t_mc = timed(ipso.monte_carlo, [20, 50, 100], n_mc, rng, workers=args.workers)
    f = mc.to_frame()
    worst = max(
        abs(f.loc[k, "separable"] - float(dp.fractions(k)["separable"])) / f.loc[k, "separable_se"]
        for k in (20, 50, 100)
    )
    rows.append((f"Monte Carlo, {n_mc:,} pairs, k = 20, 50, 100, {args.workers} processes", t_mc,
                 f"largest distance of an estimate from the exact value: {worst:.2f} SE"))
    if n_mc != 10**9:
        rows.append(("Monte Carlo, 10^9 pairs (EXTRAPOLATED linearly from the row above)",
                     scale(t_mc, 1e9 / n_mc), "extrapolated"))

    # the same pairs through the per-pair loop and through the vectorised Algorithm 1
    m, k = args.loop_pairs, 100
    g = np.random.default_rng(args.seed + 1)
    a = g.integers(0, 2, size=(m, k), dtype=np.int8)
    b = g.integers(0, 2, size=(m, k), dtype=np.int8)
    la, lb = a.tolist(), b.tolist()
    ref, t_loop = timed(lambda: [ipso.compare_reference(x, y, k) for x, y in zip(la, lb)])
    vec, t_vec = timed(ipso.compare, a, b)
    same = bool(np.array_equal(np.array([int(r) for r in ref]), vec.relation))
    rows.append((f"per-pair Python loop (authors' shape), {m:,} pairs, k = 100", t_loop, f"agrees with compare(): {same}"))
    rows.append((f"vectorised compare(), same {m:,} pairs, k = 100", t_vec,
                 f"loop / vectorised = {t_loop[1] / t_vec[1]:.0f}× (CPU)"))
    loop_1e9 = scale(t_loop, 1e9 / m)
    rows.append(("per-pair Python loop, 10^9 pairs, k = 100 (EXTRAPOLATED)", loop_1e9,
                 f"loop / Monte Carlo = {loop_1e9[1] / (t_mc[1] * 1e9 / n_mc):.0f}× (CPU)"))
    k15 = 15
    la15, lb15 = a[:, :k15].tolist(), b[:, :k15].tolist()
    _, t_loop15 = timed(lambda: [ipso.compare_reference(x, y, k15) for x, y in zip(la15, lb15)])
    loop_all15 = scale(t_loop15, 4**15 / m)
    rows.append(("per-pair Python loop over all 4^15 pairs, k = 15 (EXTRAPOLATED)", loop_all15,
                 f"loop / brute force = {loop_all15[1] / t_bf[1]:.0f}× (CPU)"))

    print(f"Machine: {platform.machine()}, {os.cpu_count()} CPUs visible, Python {platform.python_version()}, numpy {np.__version__}\n")
    print(f"Load average at the end: {os.getloadavg()[0]:.2f} (wall times grow with other load; CPU times less so)\n")
    print("| computation | wall seconds | CPU seconds | check |")
    print("|---|---:|---:|---|")
    for name, t, note in rows:
        print(f"| {name} | {t[0]:,.3f} | {t[1]:,.3f} | {note} |")


if __name__ == "__main__":
    main()

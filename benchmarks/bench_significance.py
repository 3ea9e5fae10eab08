"""Benchmark the significance and correlation kernels at the papers' scales; prints markdown tables.

Run: ``.venv/bin/python benchmarks/bench_significance.py`` (simulated scores; timings only).

- FFF21 Tables 5–6 scale: T08_30 has 129 systems (8,256 pairs) × 50 topics.
- Fer17 RQ1 scale: τ and τ_AP for batches of H = 100 ranking pairs of S systems.
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

import pandas as pd

from irscales.stats import _anova as anova
from irscales import correlation as corr
from irscales.stats import _significance as sg


def _time(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def significance_table(n_topics: int = 50, n_systems: int = 129, seed: int = 0) -> str:
    rng = np.random.default_rng(seed)
    # Simulated P@30-like scores with a system effect, so that tests find some significant pairs.
    k = rng.binomial(30, np.clip(rng.beta(2, 5, size=(n_topics, 1)) + rng.normal(0, 0.1, size=(1, n_systems)),
                                  0.01, 0.99))
    floats = k / 30
    exact = np.vectorize(lambda v: Fraction(int(v), 30), otypes=[object])(k)
    sg.anova1_tukey(floats, pvalues=False)  # warm the critical-value cache, as repeated use would
    sg.anova2_tukey(floats, pvalues=False)
    rows = ["| test | float scores (s) | Fraction scores (s) | significant pairs |", "|---|---|---|---|"]
    total_f = total_e = 0.0
    for key in sg.TESTS:
        fn = sg.PROCEDURES[key]
        kw = {"pvalues": False} if key in ("anova1", "anova2") else {}
        tf = _time(lambda: fn(floats, **kw))
        te = _time(lambda: fn(exact, **kw), repeat=1)
        total_f += tf
        total_e += te
        rows.append(f"| {sg.TEST_LABELS[key]} | {tf:.3f} | {te:.3f} | {fn(floats, **kw).n_significant} |")
    rows.append(f"| **all eight** | **{total_f:.2f}** | **{total_e:.2f}** | |")
    sub = floats[:, :32]  # 496 pairs
    tp = _time(lambda: sg.anova1_tukey(sub, pvalues=True), repeat=1)
    head = (f"Simulated scores, {n_topics} topics × {n_systems} systems = "
            f"{n_systems * (n_systems - 1) // 2} pairs (ANOVA Tukey p-values skipped, rank-test ones computed; decisions use the "
            f"critical value). For scale: one-way ANOVA + Tukey with p-values for 32 systems "
            f"(496 pairs): {tp:.2f} s.\n")
    return head + "\n".join(rows)


def correlation_table(h: int = 100, seed: int = 0) -> str:
    rng = np.random.default_rng(seed)
    rows = ["| systems S | τ_b all-pairs (s) | τ_b sorted (s) | τ_AP (s) |", "|---|---|---|---|"]
    for s in (10, 50, 100, 250, 500):
        x = rng.normal(size=(h, s))
        y = x + rng.normal(scale=0.3, size=(h, s))
        tp = _time(lambda: corr.kendall_counts(x, y, method="pairwise"))
        ts = _time(lambda: corr.kendall_counts(x, y, method="sorted"))
        rows.append(f"| {s} | {tp:.4f} | {ts:.4f} | {_time(lambda: corr.tau_ap(x, y)):.4f} |")
    x = rng.normal(size=(19_600, 500))
    y = x + rng.normal(scale=0.3, size=x.shape)
    big = _time(lambda: corr.kendall_tau(x, y), repeat=1)
    return (f"Batches of H = {h} ranking pairs (Fer17 §4.1: H = 100 per cell). One call on all 19,600 "
            f"rankings of S = 500 systems (one system size of the RQ1 design): {big:.1f} s.\n" + "\n".join(rows))


def anova_table(seed: int = 0) -> str:
    """Fer17 eq. (8) at full size: 100 subjects × 28 pairs × 7 topic sizes × 10 system sizes."""
    rng = np.random.default_rng(seed)
    idx = pd.MultiIndex.from_product([range(100), range(28), (10, 20, 30, 40, 50, 60, 70),
                                      (10, 20, 50, 75, 100, 125, 150, 200, 250, 500)],
                                     names=["subject", "pair", "topics", "systems"])
    d = idx.to_frame(index=False)
    d["tau"] = 0.5 + 0.01 * d["pair"] + 0.003 * d["topics"] + rng.normal(0, 0.07, len(d))
    t = _time(lambda: anova.balanced_anova(d, "tau", anova.CROSSED_TERMS), repeat=1)
    return (f"| model | observations | balanced_anova (s) |\n|---|---|---|\n"
            f"| Fer17 eq. (8), simulated τ | {len(d):,} | {t:.2f} |")


if __name__ == "__main__":
    print("## Significance tests (FFF21 §7.3 scale)\n")
    print(significance_table())
    print("\n## Rank correlation (Fer17 scale)\n")
    print(correlation_table())
    print("\n## ANOVA (Fer17 scale)\n")
    print(anova_table())

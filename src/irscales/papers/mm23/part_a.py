"""MM23 Part A: everything in §2 and the exhaustive part of §3 that needs no runs — Table 1,
Fig. 3's τ values, Fig. 4, the graded example of §4, Table 2 — and the published-vs-reproduced
items of that part.

Conventions that reproduce the paper (MM23 Table 1 and Fig. 3)
    On an exhaustive universe there is no recall base: AP@k is normalised by k (SP/k; any
    constant gives the same order), NDCG@k uses the 1/log2(i+1) discount with an ideal of k
    relevant documents, and ties on a Fig. 3 axis are broken by ascending lexicographic
    (= RBP(0.5)) order. Of the readings tried (:func:`fig3_convention_taus`) only this one gives
    the paper's τ = 0.796, 0.786, 0.976 (exactly 401/504, 11/14, 41/42).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import pandas as pd

from irscales._atomic import write_atomic
from irscales.ipso import (
    PHI, CategoryCounts, MonteCarloResult, Relation, all_serps, axis_order, axis_tau, compare, count_categories,
    diagonal_blocks, exact_sign, golden_rbp_exact, relation_grid,
)
from irscales.measures import NDCG, RBP, RR, SP, AP, P, Succ
from irscales.papers.mm23.conventions import (
    FIG3_PANES, FIG4_S1, FIG4_S2, GRADED_EXAMPLE, JONES_K, TABLE2_DEPTHS,
)
from irscales.papers.printing import agreement, read, yes_no
from irscales.paths import figures_dir

__all__ = [
    "TABLE1_METRICS", "table1", "fig3_scores", "fig3_convention_taus", "fig4_frame", "reproduce_part_a",
    "table2_frame", "table2_sampling_gap", "table2_notes", "montecarlo_gap", "save_table2",
]


def _table1_metrics(k: int) -> dict[str, object]:
    """Table 1's eight metrics at depth k, keyed by the paper's labels (``Prec@3`` …), each
    giving an exactly comparable score of one SERP."""
    return {
        f"Prec@{k}": lambda s: P(k=k).exact(s)[()],
        f"RBP(0.8)@{k}": lambda s: RBP(p=0.8).exact(s)[()],
        # AP@k on an exhaustive universe: the recall base is unknown, so AP is normalised by k
        # (any constant gives the same order; this is the reading that reproduces Fig. 3's τ)
        f"AP@{k}": lambda s: AP().exact(s, rb=k)[()],
        # NDCG@k with trec_eval's 1/log2(i+1) discount, ideal = k relevant documents
        f"NDCG@{k}": lambda s: float(NDCG(discount="log2p1")(s, rb=k)),
        f"Succ@{k}": lambda s: Succ(k=k).exact(s)[()],
        f"RBP((sqrt5-1)/2)@{k}": golden_rbp_exact,
        f"RR@{k}": lambda s: RR().exact(s)[()],
        f"RBP(0.5)@{k}": lambda s: RBP(p=0.5).exact(s)[()],
    }


TABLE1_METRICS = tuple(_table1_metrics(3))


def table1(s1: Sequence[int] = (1, 0, 0), s2: Sequence[int] = (0, 1, 1)) -> pd.DataFrame:
    """MM23 Table 1: for each metric, is M(s1) <, = or > M(s2)? Decided exactly.

    Defaults are the single non-separable pair of k = 3, [1,0,0] vs [0,1,1].
    """
    if len(s1) != len(s2):
        raise ValueError(f"the two SERPs must have the same length, got {len(s1)} and {len(s2)}")
    k = len(s1)
    rows = []
    for name, f in _table1_metrics(k).items():
        m1, m2 = f(np.asarray(s1)), f(np.asarray(s2))
        sgn = exact_sign(m1, m2, k)
        rows.append({"metric": name, "M(s1)": float(m1), "M(s2)": float(m2),
                     "ordering": "<=>"[sgn + 1]})
    return pd.DataFrame(rows).set_index("metric")


# --------------------------------------------------------------------- Figure 3 axis orderings


def fig3_scores(serps: np.ndarray) -> dict[str, np.ndarray]:
    """The three axis metrics of MM23 Fig. 3 on binary SERPs, in exactly comparable form.

    Keyed by :attr:`~irscales.measures.Measure.key` (the paper's axis labels are
    :data:`~irscales.papers.mm23.conventions.FIG3_LABELS`). ``RBP_p05``: exact Fractions. ``SP``:
    the paper's "AP", i.e. AP@k normalised by k = SP/k, as exact Fractions (normalising by the
    number of relevant documents in the SERP does not reproduce the paper's τ). ``nDCG_log2p1``:
    float nDCG@k with the 1/log2(i+1) discount and an ideal of k relevant documents;
    :func:`~irscales.ipso.axis_order` checks that no two distinct values are within rounding error.
    """
    k = serps.shape[-1]
    return {
        RBP(p=0.5).key: RBP(p=0.5).exact(serps),
        SP().key: SP().exact(serps) / k,
        NDCG(discount="log2p1").key: NDCG(discount="log2p1")(serps, rb=k),
    }


def fig3_convention_taus(k: int = 6) -> pd.DataFrame:
    """τ of Fig. 3's panes (b), (c), (d) under each reading of the paper's AP, NDCG and axis
    tie-breaking, to show which reading reproduces the published τ (MM23 §2).

    AP@k normalised by k (``"k"``) or by the number of relevant documents in the SERP
    (``"nrel"``); NDCG@k with the 1/log2(i+1) discount (``"log2p1"``) or Järvelin–Kekäläinen's
    base-2 discount (``"jk2"``), ideal = k relevant (``"k"``) or = the SERP's own relevant count
    sorted to the top (``"nrel"``); ties on an axis broken by ascending or descending lexicographic
    order. RBP(0.5) has no ties.
    """
    serps = all_serps(k)
    nrel = serps.sum(1)
    sp = SP().exact(serps)
    aps = {
        "k": sp / k,
        "nrel": np.array([x / int(n) if n else Fraction(0) for x, n in zip(sp, nrel)], dtype=object),
    }
    ndcgs = {}
    for disc, m in (("log2p1", NDCG(discount="log2p1")), ("jk2", NDCG(base=2))):
        ndcgs[(disc, "k")] = m(serps, rb=k)
        ndcgs[(disc, "nrel")] = m(serps, rb=nrel)
    rbp = fig3_scores(serps)[RBP(p=0.5).key]
    rows = []
    for tb in ("lex", "lex_desc"):
        pr = axis_order(rbp, tb)
        for an, a in aps.items():
            pa = axis_order(a, tb)
            for (dn, ideal), v in ndcgs.items():
                pn = axis_order(v, tb, float_ties="snap")
                rows.append({
                    "AP normalised by": an, "NDCG discount": dn, "NDCG ideal": ideal, "ties": tb,
                    "tau_b": float(axis_tau(pr, pn)), "tau_c": float(axis_tau(pa, pr)),
                    "tau_d": float(axis_tau(pa, pn)),
                })
    return pd.DataFrame(rows)



def _fmt_values(vals) -> str:
    """The distinct values, sorted, comma-separated."""
    return ", ".join(str(v) for v in sorted(set(vals)))


def reproduce_part_a(table2: CategoryCounts | None = None) -> dict[str, object]:
    """Every Part-A item of ``data/published/mm23.csv`` recomputed (keys = its items).

    Table 2 values are the exact fractions (in %) from :func:`count_categories` (or from the
    ``table2`` counts given, which must reach depth 100).
    """
    out: dict[str, object] = {}
    t1 = table1()
    for m, row in t1.iterrows():
        out[f"table1/{m}"] = row["ordering"]
    s3 = all_serps(3)
    g3 = relation_grid(s3)
    out["fig1/k3/serps"] = len(s3)
    out["fig2/k3/cells"] = g3.size
    out["fig2/k3/equal_cells"] = int((g3 == Relation.EQUAL).sum())
    out["fig2/k3/nonsep_cells"] = int((g3 == Relation.NONSEP).sum())
    out["fig2/k3/nonsep_pairs"] = int((g3 == Relation.NONSEP).sum()) // 2
    prec = P(k=3).exact(s3).tolist()
    rr = RR().exact(s3).tolist()
    i101, i011 = 0b101, 0b011
    out["s2/prec3/n_values"] = len(set(prec))
    out["s2/prec3/values"] = _fmt_values(prec)
    out["s2/prec3/equal_101_011"] = yes_no(prec[i101] == prec[i011])
    out["s2/rr3/n_values"] = len(set(rr))
    out["s2/rr3/values"] = _fmt_values(rr)
    out["s2/rr3/equal_101_011"] = yes_no(rr[i101] == rr[i011])
    out["s2/rbp05_k3/n_values"] = len(set(RBP(p=0.5).exact(s3).tolist()))
    out["s2/golden_ratio"] = float(PHI)
    lex_ok = all(
        list(axis_order(RBP(p=0.5).exact(all_serps(k)))) == list(range(2**k)) for k in (3, 6)
    )
    out["s2/lex_is_rbp05_order"] = yes_no(lex_ok)
    s6 = all_serps(6)
    g6 = relation_grid(s6)
    out["fig3/k6/cells"] = g6.size
    for kk, name in ((3, "k3"), (4, "k4"), (5, "k5")):
        out[f"fig3/a/{name}_blocks_on_diagonal"] = diagonal_blocks(g6, relation_grid(all_serps(kk)))
    sc = fig3_scores(s6)
    pos = {n: axis_order(v) for n, v in sc.items()}
    for tag, (r, c) in zip("abcd", FIG3_PANES):
        out[f"fig3/{tag}/tau"] = float(axis_tau(pos[r], pos[c]))
    f4 = compare(FIG4_S1, FIG4_S2)
    out["fig4/separable_from"] = int(f4.separable_from)
    out["fig4/equal_until"] = int(f4.separable_from) - 1
    out["fig4/nonseparable_from"] = int(f4.nonseparable_from)
    out["fig4/relation_k5"] = Relation(int(f4.at(5))).words
    out["fig4/relation_k10"] = Relation(int(f4.at(10))).words
    ge = GRADED_EXAMPLE
    for a, b in (("S1", "S2"), ("S1", "S3"), ("S2", "S3")):
        out[f"s4/graded/{a}_vs_{b}"] = Relation(int(compare(ge[a], ge[b]).relation)).words
    out["s6/jones_lists_k10"] = int((all_serps(JONES_K).sum(1) > 0).sum())
    counts = table2 if table2 is not None else count_categories(max(TABLE2_DEPTHS))
    for k in TABLE2_DEPTHS:
        for col, v in counts.fractions(k).items():
            out[f"table2/k{k}/{col}"] = 100 * float(v)
    return out


def table2_sampling_gap(counts: CategoryCounts, published: pd.DataFrame,
                        samples: Sequence[int] = (10**9, 10**6)) -> pd.DataFrame:
    """Printed Table 2 against the exact fractions, in standard errors of Monte Carlo samples.

    One row per (k, column) of Table 2 (``published``: ``data/published/mm23.csv``): exact %, printed
    %, printed − exact (percentage points) and, for each sample size n, that gap in units of the
    standard error √(p(1−p)/n) of an n-pair estimate at the exact p (MM23 used n = 10^9 for k ≥ 20),
    and how many of those standard errors the printed rounding (half a unit in the last printed
    place) can account for.
    """
    pub = published.set_index("item")
    rows = []
    for k in TABLE2_DEPTHS:
        if k > counts.k:
            continue
        exact = counts.fractions(k)
        for col in ("equal", "separable", "nonsep"):
            item = f"table2/k{k}/{col}"
            if item not in pub.index:
                continue
            text = str(pub.loc[item, "value"])
            p_text = read(text)
            printed, decimals = float(p_text.value), p_text.decimals
            p = float(exact[col])
            row = {"item": item, "k": k, "column": col, "exact %": 100 * p, "printed %": printed,
                   "printed decimals": decimals, "printed − exact (points)": printed - 100 * p}
            for n in samples:
                se = 100 * math.sqrt(p * (1 - p) / n)
                row[f"SE of {n:.0e} pairs (points)"] = se
                row[f"gap in SE of {n:.0e}"] = (printed - 100 * p) / se if se else float("nan")
                row[f"rounding in SE of {n:.0e}"] = 0.5 * 10.0 ** -decimals / se if se else float("nan")
            rows.append(row)
    return pd.DataFrame(rows).set_index("item")


def table2_notes(gap: pd.DataFrame, counts: CategoryCounts, samples: Sequence[int] = (10**9, 10**6)) -> dict[str, str]:
    """Notes for the Table 2 items that differ from the exact values, saying by how much and why
    (from :func:`table2_sampling_gap`): sampling rows in standard errors of the paper's 10^9-pair
    sample and of a 10^6-pair one; exhaustive rows with the exact count they should round to."""
    big, small = samples
    notes = {}
    for item, r in gap.iterrows():
        exact, printed, decimals = r["exact %"], r["printed %"], int(r["printed decimals"])
        if agreement(f"{printed:.{decimals}f}", 100 * counts.fractions(int(r["k"]))[str(r["column"])]).reproduced:
            continue  # agrees at the printed precision
        k = int(r["k"])
        if k > 15:
            z_big, z_small = r[f"gap in SE of {big:.0e}"], r[f"gap in SE of {small:.0e}"]
            notes[item] = (
                f"paper's estimate from {big:.0e} random pairs; the exact value is {exact:.4f}% "
                f"(exact counting, checked against enumeration): the printed value is {abs(z_big):.0f} standard "
                f"errors of a {big:.0e}-pair sample {'below' if z_big < 0 else 'above'} it (printed rounding "
                f"accounts for at most {r[f'rounding in SE of {big:.0e}']:.1f}), but only {abs(z_small):.1f} SE of a "
                f"{small:.0e}-pair sample").replace("1e+09", "10^9").replace("1e+06", "10^6")
        else:
            col = str(r["column"])
            row = counts.row(k)
            n = {"equal": row["="], "separable": row["ni"] + row["ns"], "nonsep": row["**"]}[col]
            notes[item] = (f"exhaustive: {n:,} of 4^{k} pairs = {exact:.4f}%, which rounds to "
                           f"{exact:.{decimals}f}%; the printed row sums to "
                           f"{gap.loc[[f'table2/k{k}/{c}' for c in ('equal', 'separable', 'nonsep')], 'printed %'].sum():.2f}%")
    return notes


def save_table2(exact_percent: pd.DataFrame, mc: pd.DataFrame | None = None, n_pairs: int | None = None,
                seed: int | None = None, paper: str = "mm23") -> list[str]:
    """Write Table 2 to ``figures/<paper>/``: the exact fractions (``table2_exact.csv``) and, if
    given, the Monte Carlo estimates from simulated pairs
    (``table2_montecarlo_simulated_<n>pairs.csv``); returns the names written."""
    d = figures_dir(paper)
    write_atomic(d / "table2_exact.csv", exact_percent.to_csv(float_format="%.6f"))
    names = [f"{paper}/table2_exact.csv"]
    if mc is not None:
        name = f"table2_montecarlo_simulated_{n_pairs}pairs_seed{seed}.csv"
        write_atomic(d / name, mc.to_csv(float_format="%.8f"))
        names.append(f"{paper}/{name}")
    return names


# ------------------------------------------------------------------- tables notebook 05 shows


def fig4_frame(s1: Sequence = FIG4_S1, s2: Sequence = FIG4_S2) -> pd.DataFrame:
    """MM23 Fig. 4 as a table: per depth, the two SERPs, the running difference Σ(S1 − S2) and
    the relation (Algorithm 1) at that depth."""
    a, b = np.asarray(s1), np.asarray(s2)
    r = compare(a, b)
    depth = range(1, len(a) + 1)
    return pd.DataFrame({
        "depth": depth, "S1": a, "S2": b, "cumul": np.cumsum(a - b),
        "relation": [Relation(int(r.at(d))).label for d in depth],
    }).set_index("depth")


def table2_frame(counts: CategoryCounts, mc: MonteCarloResult | None, published: pd.DataFrame,
                 depths: Sequence[int] = (*TABLE2_DEPTHS, 1000)) -> pd.DataFrame:
    """MM23 Table 2 beside ours: per depth the exact % of equal / separable / non-separable pairs,
    the printed value (``published``: ``data/published/mm23.csv``) and, at the Monte Carlo depths,
    the simulated estimate of the separable % with its 95 % Wilson interval."""
    pub = published.set_index("item")
    exact = counts.to_frame(list(depths)) * 100
    mcf = mc.to_frame() if mc is not None else pd.DataFrame()
    rows = []
    for k in depths:
        row = {"k": k}
        for col in ("equal", "separable", "nonsep"):
            row[f"exact {col} %"] = exact.loc[k, col]
            key = f"table2/k{k}/{col}"
            row[f"paper {col}"] = pub.loc[key, "value"] if key in pub.index else ""
        if k in mcf.index:
            row["MC (simulated) separable %"] = 100 * mcf.loc[k, "separable"]
            row["MC 95% CI"] = f"[{100 * mcf.loc[k, 'separable_lo']:.4f}, {100 * mcf.loc[k, 'separable_hi']:.4f}]"
        rows.append(row)
    return pd.DataFrame(rows).set_index("k")


def montecarlo_gap(mc: MonteCarloResult, counts: CategoryCounts) -> pd.DataFrame:
    """Our Monte Carlo estimates minus the exact fractions, in the estimates' own standard errors."""
    mcf = mc.to_frame()
    return pd.DataFrame({f"ours (simulated) − exact in our SE, {col}": [
        (mcf.loc[k, col] - float(counts.fractions(k)[col])) / mcf.loc[k, f"{col}_se"] for k in mcf.index]
        for col in ("separable", "nonsep")}, index=mcf.index)

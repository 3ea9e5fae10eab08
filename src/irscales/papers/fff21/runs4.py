"""FFF21 on the 16 binary runs of length 4: Figure 1 (the Hasse diagram, §3.2), Figure 2 (a)–(g)
(ordering and spacing of the runs under seven measures), Example 9, Table 1 / Example 10, the
tie-breaking example of §5, Example 12 (φ of eq. 2) and Example 13.

Values are exact (:func:`irscales.theory.hasse.exact_values`): Fractions for the rational measures
(RB = N, so P = R) and a + b/log₂3 for DCG with log base 2, whose order and equalities are integer
comparisons. φ of eq. (2) is :func:`irscales.ranks.phi_of_image`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import pandas as pd

from irscales import enumeration as E
from irscales import measures as M
from irscales.figures import write_figure
from irscales.papers import published
from irscales.papers.fff21.record import Part, fmt_set, fmt_vec, line, same_for_all
from irscales.papers.printing import yes_no
from irscales.ranks import phi_of_image
from irscales.theory import hasse as H
from irscales.theory import setbased as sb
from irscales.options import UNQ

__all__ = ["FIG2_MEASURES", "FIG2_TITLES", "TABLE1_RUNS", "TIE_EXAMPLE", "Figure2", "figure1", "figure2",
           "spacing_table", "spacing_text", "plot_figure2", "figure2_claims", "example9", "table1", "tie_breaking",
           "example12", "example13"]

#: The measures of Fig. 2 (a)–(g), by key, and the panel titles.
FIG2_MEASURES = {"P": M.P(), "AP": M.AP(), "RR": M.RR(), "RBP_p03": M.RBP(p=0.3), "RBP_p05": M.RBP(p=0.5),
                 "RBP_p08": M.RBP(p=0.8), "DCG_b02": M.DCG(base=2)}
FIG2_TITLES = {"P": "(a) Precision (and Recall)", "AP": "(b) AP", "RR": "(c) RR", "RBP_p03": "(d) RBP, p=0.3",
               "RBP_p05": "(e) RBP, p=0.5", "RBP_p08": "(f) RBP, p=0.8", "DCG_b02": "(g) DCG, log base 2"}
#: Table 1: two queries per system, N = RB = 4.
TABLE1_RUNS = {"A": [(1, 1, 1, 0), (1, 0, 0, 1)], "B": [(1, 1, 0, 1), (1, 0, 1, 0)],
               "C": [(0, 0, 1, 0), (0, 1, 0, 1)], "D": [(0, 0, 0, 1), (0, 1, 1, 0)]}
#: §5's tie-breaking example M = [0.00 0.25 0.40 0.40 0.70].
TIE_EXAMPLE = [Fraction(0), Fraction(1, 4), Fraction(2, 5), Fraction(2, 5), Fraction(7, 10)]


def _saved(paths: list[Path]) -> str:
    return line("saved", f"{paths[0].parent.name}/{paths[0].name}", "and .pdf")


def figure1(N: int, out: str | Path) -> Part:
    """Fig. 1: the Hasse diagram of the 2^N runs, written to ``out`` (``fig1_hasse_N<N>``), and the
    comparability claims of §3.2."""
    runs = H.all_runs(N)
    edges = H.cover_edges(N)
    items: dict[str, object] = {"fig1/n_runs": len(runs)}
    for a, b in [((1, 1, 0, 1), (1, 1, 1, 0)), ((1, 1, 0, 0), (1, 1, 1, 0)), ((1, 0, 1, 1), (1, 1, 1, 0))]:
        items[f"s3.2/comparable/{H.run_label(a)}<={H.run_label(b)}"] = yes_no(H.leq(a, b))
    for a, b in [((1, 1, 0, 0), (1, 0, 1, 1)), ((1, 1, 0, 0), (0, 1, 1, 1))]:
        items[f"s3.2/comparable/{H.run_label(a)}~{H.run_label(b)}"] = yes_no(H.comparable(a, b))
    fig = H.draw_hasse(N, title=f"FFF21 Fig. 1: partial order of the {len(runs)} runs of length {N}")
    lines = [f"{len(runs)} runs, {len(edges)} covering edges, {len({H.level(r) for r in runs})} levels",
             _saved(write_figure(fig, out, f"fig1_hasse_N{N}"))]
    return Part(items, text="\n".join(lines))


@dataclass(frozen=True)
class Figure2:
    """Exact values of every Fig. 2 measure on the runs of length N, and their spacing."""

    N: int
    runs: list
    values: dict     # key → {run: exact value}
    spacing: dict    # key → hasse.Spacing


def figure2(N: int) -> Figure2:
    """Exact values and spacing of the seven measures of Fig. 2 on all 2^N runs."""
    vals = {k: H.exact_values(m, N) for k, m in FIG2_MEASURES.items()}
    return Figure2(N, H.all_runs(N), vals, {k: H.spacing(v, k) for k, v in vals.items()})


def spacing_table(f2: Figure2) -> pd.DataFrame:
    """One row per measure: distinct values, equi-spaced, symmetric, smallest and largest gap."""
    rows = []
    for k in FIG2_MEASURES:
        s = f2.spacing[k]
        i, g = s.largest_gap()
        rows.append({"measure": k, "distinct values": len(s.values), "equi-spaced": s.equispaced,
                     "symmetric (fold)": s.symmetric, "smallest gap": round(float(min(s.gaps)), 4),
                     "largest gap": str(g), "largest gap ≈": round(float(g), 4),
                     "between": f"{float(s.values[i]):.4f} – {float(s.values[i + 1]):.4f}",
                     "max value": round(float(s.values[-1]), 4)})
    return pd.DataFrame(rows)


def spacing_text(f2: Figure2) -> str:
    """Per measure, its distinct values from the top with φ and the tied runs (the panels of Fig. 2)."""
    out = []
    for k in FIG2_MEASURES:
        out += [FIG2_TITLES[k], pd.DataFrame(f2.spacing[k].rows()).to_string(index=False), ""]
    return "\n".join(out)


def plot_figure2(f2: Figure2, out: str | Path) -> str:
    """Fig. 2 (a)–(g) as one figure, written to ``out`` (``fig2_spacing_N<N>``); returns the saved line."""
    fig = H.spacing_grid({k: f2.spacing[k] for k in FIG2_MEASURES}, FIG2_TITLES,
                         f"FFF21 Fig. 2: ordering and spacing of the {len(f2.runs)} runs of length {f2.N} "
                         "(one square per distinct score; tied runs listed beside it)")
    return _saved(write_figure(fig, out, f"fig2_spacing_N{f2.N}"))


def figure2_claims(f2: Figure2) -> Part:
    """The claims read off Fig. 2: equi-spacing, symmetry, P = R, the unused parts of [0, 1], and
    that no measure reverses a pair comparable in the partial order of §3.2."""
    sp, vals = f2.spacing, f2.values
    items: dict[str, object] = {}
    for k in FIG2_MEASURES:
        items[f"fig2/{k}/equispaced"] = yes_no(sp[k].equispaced)
    for k in ("RBP_p03", "RBP_p08", "DCG_b02", "AP", "RR"):
        items[f"fig2/{k}/symmetric"] = yes_no(sp[k].symmetric)
    items["fig2/P_equals_R"] = yes_no(vals["P"] == H.exact_values(M.R(), f2.N, rb=f2.N))
    lines = []
    for k, item in (("AP", "fig2/AP/unused_top"), ("RR", "fig2/RR/unused_top"),
                    ("RBP_p03", "fig2/RBP_p03/unused_middle")):
        i, g = sp[k].largest_gap()
        items[item] = g if isinstance(g, Fraction) and g.denominator < 100 else float(g)
        lines.append(f"{k}: largest gap {g} ≈ {float(g):.4f} between {float(sp[k].values[i]):.4f} and "
                     f"{float(sp[k].values[i + 1]):.4f}")
    i, g = sp["RBP_p03"].largest_gap()
    notes = {"fig2/RBP_p03/unused_middle": (
        f"the empty middle band is {float(sp['RBP_p03'].values[i]):.4f} → {float(sp['RBP_p03'].values[i + 1]):.4f}, "
        f"i.e. {float(g):.4f} of [0,1] ({float(g / sp['RBP_p03'].values[-1]):.3f} of the used range); "
        "'half' is approximate")}
    pairs = [(r, s) for r in f2.runs for s in f2.runs if r != s and H.leq(r, s)]
    items["s3.2/comparable_pairs_never_reversed"] = yes_no(all(vals[k][r] <= vals[k][s] for k in FIG2_MEASURES
                                                            for r, s in pairs))
    for chain, item in ((((0, 0, 0, 0), (0, 0, 0, 1), (0, 0, 1, 0)), "fig2/agree/(0,0,0,0)<(0,0,0,1)<(0,0,1,0)"),
                        (((1, 1, 0, 1), (1, 1, 1, 0), (1, 1, 1, 1)), "fig2/agree/(1,1,0,1)<(1,1,1,0)<(1,1,1,1)")):
        items[item] = yes_no(all(vals[k][a] <= vals[k][b] for k in FIG2_MEASURES for a, b in zip(chain, chain[1:])))
    strict_all = sum(1 for r, s in pairs if all(vals[k][r] < vals[k][s] for k in FIG2_MEASURES))
    lines.append(f"{len(pairs)} comparable pairs; no measure reverses any; {strict_all} are strictly ordered by all seven")
    return Part(items, notes, text="\n".join(lines))


def example9() -> Part:
    """Example 9: MRR against the mean rank of the first relevant document, two queries."""
    first_rank = {"A": [1, 4], "B": [2, 2]}
    table = pd.DataFrame([{"system": s, "MRR": float(sum(Fraction(1, k) for k in r) / 2),
                           "mean rank": float(Fraction(sum(r), 2))} for s, r in first_rank.items()])
    items: dict[str, object] = {}
    for system, mrr, mean_rank in zip(table["system"], table["MRR"], table["mean rank"]):
        items[f"ex9/MRR_{system}"] = mrr
        items[f"ex9/mean_rank_{system}"] = mean_rank
    return Part(items, table=table)


def table1(f2: Figure2) -> Part:
    """Table 1 / Example 10: mean AP of four systems on two queries (N = RB = 4), and the gaps
    between the runs ranked 13/14 and 10/9 from the top of Fig. 2(b)."""
    ap_of = f2.values["AP"]
    items: dict[str, object] = {}
    rows = []
    for s, (q1, q2) in TABLE1_RUNS.items():
        ap = [ap_of[q1], ap_of[q2]]
        mean_ap = sum(ap) / 2
        items[f"table1/{s}/AP"] = float(mean_ap)
        rows.append({"system": s, "Q1": H.run_label(q1), "Q2": H.run_label(q2), "AP(Q1)": ap[0], "AP(Q2)": ap[1],
                     "mean AP": mean_ap, "≈": round(float(mean_ap), 6)})
    table = pd.DataFrame(rows)
    items["ex10/A_better_than_B"] = yes_no(table.loc[0, "mean AP"] > table.loc[1, "mean AP"])
    items["ex10/C_worse_than_D"] = yes_no(table.loc[2, "mean AP"] < table.loc[3, "mean AP"])
    notes = _table1_notes({s: [ap_of[q] for q in qs] for s, qs in TABLE1_RUNS.items()})
    # ranks in Fig. 2(b) counted from the top, tied runs sharing a rank
    ph = phi_of_image(ap_of.values())
    from_top = {r: len(ph) - ph[v] + 1 for r, v in ap_of.items()}
    by_rank: dict[int, list] = {}
    for r, k in from_top.items():
        by_rank.setdefault(k, []).append(r)
    lines = []
    for k in (9, 10, 13, 14):
        tied = sorted(by_rank[k], reverse=True)
        lines.append(f"AP rank {k} from the top: {' '.join(H.run_label(r) for r in tied)}  AP = {ap_of[tied[0]]}")
    gap_13_14 = ap_of[(0, 0, 1, 0)] - ap_of[(0, 0, 0, 1)]
    gap_10_9 = ap_of[(0, 1, 1, 0)] - ap_of[(0, 1, 0, 1)]
    lines.append(f"gap between ranks 13 and 14: {gap_13_14}; between 10 (left branch, (0,1,0,1)) and 9: {gap_10_9}")
    items["ex10/gap_13_14_smaller_than_gap_10_9"] = yes_no(
        from_top[(0, 0, 1, 0)] == 13 and from_top[(0, 0, 0, 1)] == 14 and from_top[(0, 1, 0, 1)] == 10
        and from_top[(0, 1, 1, 0)] == 9 and gap_13_14 < gap_10_9)
    return Part(items, notes, text="\n".join(lines), table=table)



def _decimal(x: Fraction) -> str:
    """``x`` to 6 decimals without trailing zeros (0.6875, 0.416667)."""
    return f"{float(x):.6f}".rstrip("0").rstrip(".")


def _table1_notes(ap: dict[str, list[Fraction]]) -> dict[str, str]:
    """Why Table 1's printed mean AP of B, C, D differ from the exact means (printed values read from
    ``data/published/fff21.csv``; every number here is computed; whether a printed value is rounded
    or truncated is the comparison's rule, :mod:`irscales.papers.printing`)."""
    pub = published.load("fff21").set_index("item")["value"]
    mean = {s: sum(v) / 2 for s, v in ap.items()}
    b, c = pub["table1/B/AP"], pub["table1/C/AP"]
    exact_c = _decimal(mean["C"])
    agree = next(i for i, (x, y) in enumerate(zip(exact_c, c)) if x != y) - 2  # decimals after "0."
    return {"table1/B/AP": f"exact mean AP of B is {mean['B']} = {_decimal(mean['B'])} ({_decimal(ap['B'][0])} and "
                           f"{_decimal(ap['B'][1])}); {b} is a typo in the paper (A, C, D agree with RB = 4)",
            "table1/C/AP": f"exact {mean['C']} = {exact_c} (AP {ap['C'][0]} and {ap['C'][1]}); the printed {c} agrees "
                           f"to {agree} decimals only (rounding slip)",
            "table1/D/AP": f"exact {mean['D']} = {_decimal(mean['D'])}"}


def tie_breaking(values=TIE_EXAMPLE) -> Part:
    """§5: the ranks of ``values`` with ties at their average (mid), lowest (min), highest (max)
    rank, and φ of eq. (2) (unq) — :func:`irscales.enumeration.rank_values` — and whether each is
    equi-spaced."""
    items: dict[str, object] = {}
    lines = []
    for k in ("mid", "min", "max", UNQ):
        r = E.rank_values(values, ties=k)
        items[f"s5/ties/{k}"] = fmt_vec([Fraction(x).limit_denominator(2) for x in r])
        lines.append(line(f"{k:4s}", items[f"s5/ties/{k}"], " equi-spaced:", sb.is_equispaced([Fraction(x) for x in r])))
    return Part(items, text="\n".join(lines))


def example12(f2: Figure2, max_N: int = 8) -> Part:
    """Example 12: φ of eq. (2) for DCG log2 on the runs of Fig. 2 (``text``), and which closed
    forms of φ hold for RBP p = 1/2 and RR for N = 1..``max_N`` (``table``)."""
    dcg = f2.values["DCG_b02"]
    phi_dcg = phi_of_image(dcg.values())
    items: dict[str, object] = {"ex12/n_runs": len(dcg), "ex12/n_values": len(phi_dcg)}
    rows = []
    for run in [(1, 1, 1, 1), (1, 1, 1, 0), (1, 1, 0, 1), (1, 0, 1, 1), (0, 1, 1, 1), (0, 0, 0, 1), (0, 0, 0, 0)]:
        v = dcg[run]
        items[f"ex12/DCG{H.run_label(run)}"] = float(v)
        items[f"ex12/phi{H.run_label(run)}"] = phi_dcg[v]
        rows.append({"run": H.run_label(run), "DCG exact": str(v), "DCG": round(float(v), 3), "φ": phi_dcg[v]})
    closed = []
    for N in range(1, max_N + 1):
        rbp = phi_of_image(H.exact_values(M.RBP(p=0.5), N).values())
        rr = phi_of_image(H.exact_values(M.RR(), N).values())
        closed.append({"N": N,
                       "RBP_p05: φ(m) = 2^N m + 1": all(p == 2**N * m + 1 for m, p in rbp.items()),
                       "RBP_p05: φ(m) = 2^N m": all(p == 2**N * m for m, p in rbp.items()),
                       "RR: φ(m) = N + 2 - 1/m (m > 0)": all(p == N + 2 - 1 / m for m, p in rr.items() if m > 0),
                       "RR: φ(m) = N + 1 - 1/m (m > 0)": all(p == N + 1 - 1 / m for m, p in rr.items() if m > 0),
                       "RR: φ(0)": rr[0]})
    closed = pd.DataFrame(closed)
    rbp_ok, rr_ok = closed.iloc[:, 1].all(), closed.iloc[:, 3].all()
    items["ex12/phi_RBP_p05_closed_form"] = "2^N m + 1" if rbp_ok else "none of the two forms"
    items["ex12/phi_RR_closed_form"] = "N + 2 - 1/m" if rr_ok else "none of the two forms"
    notes = {"ex12/phi_RBP_p05_closed_form": ("eq. (2) counts the values <= m, so φ(0) = 1 and φ(m) = 2^N m + 1; the "
                                              "paper's 2^N m counts the values < m (0-based). Both are affine in m: "
                                              "RBP_p05 is interval either way"),
             "ex12/phi_RR_closed_form": ("with eq. (2) φ(m) = N + 2 - 1/m for m > 0 and φ(0) = 1; the paper's "
                                         "N + 1 - 1/m is the 0-based count of values < m (and is undefined at m = 0)")}
    return Part(items, notes, text=pd.DataFrame(rows).to_string(index=False), table=closed)


def example13() -> Part:
    """Example 13: the surrogate interval scale φ of Recall on runs of length 2, RB = 2 and RB = 3."""
    runs2 = H.all_runs(2)   # r0 = (0,0), r1 = (0,1), r2 = (1,0), r3 = (1,1)
    items: dict[str, object] = {}
    rows = []
    for rb, item in ((2, "ex13/recall_RB2"), (3, "ex13/recall_RB3")):
        rv = H.exact_values(M.R(), 2, rb=rb)
        ph = phi_of_image(rv.values())
        items[item] = fmt_set([rv[r] for r in runs2])
        mapped = [ph[rv[r]] for r in runs2]
        rows.append({"RB": rb, "Recall(r0..r3)": fmt_set([rv[r] for r in runs2]), "φ(Recall)": fmt_set(mapped),
                     "r3 − r2 original": rv[runs2[3]] - rv[runs2[2]], "r3 − r2 mapped": mapped[3] - mapped[2]})
    table = pd.DataFrame(rows)
    items["ex13/mapped"] = same_for_all(table["φ(Recall)"])
    items["ex13/diff_r2_r3/mapped"] = same_for_all(str(x) for x in table["r3 − r2 mapped"])
    items["ex13/diff_r2_r3/q1"] = table.loc[0, "r3 − r2 original"]
    items["ex13/diff_r2_r3/q2"] = table.loc[1, "r3 − r2 original"]
    return Part(items, table=table)

"""FFP17 reproduced: Ferrante, Ferro, Pontarollo, *An interval-like scale property for IR evaluation
measures* (EVIA 2017) — the worked examples of §3.2–3.3 (Δ vectors, chains of basic operations, the
ERR and AP examples), FFP17's interval-like property checked exhaustively on {0,1}^N
(:func:`irscales.theory.scales.check_interval_like`), the p at which RBP starts to violate it, the
search for the lost runs of the last example, and the comparison with ``data/published/ffp17.csv``.

:func:`reproduce` returns everything notebook 04 shows; runs typed in from the paper are inputs
(module constants), everything else is computed.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd

from irscales.measures import AP, DCG, ERR, RBP
from irscales.papers import published
from irscales.papers.printing import read_value, yes_no
from irscales.theory.orders import WeakTopHeaviness, binary_runs, cumsums, delta, interval_leq
from irscales.theory.rank_identities import chain_operation_counts, runs_with_operation_counts
from irscales.theory.scales import (
    MeasureLike, check_interval_like, check_ordinal, format_counterexample, greater, interval_agrees,
    measure_values,
)
from irscales.theory.thresholds import p_threshold

__all__ = [
    "vec_str", "MEASURES", "RATE_MEASURES", "NOTES", "DCG_READINGS", "chains_example", "example1", "example2", "example3",
    "example4", "agreement", "err_example", "ap_example", "interval_like_rates", "monotone_table",
    "rbp_interval_like_threshold", "rbp_thresholds", "mass_gap_triples", "conclusions", "comparison",
    "reproduce", "plot_interval_like_rates",
]

W = WeakTopHeaviness(1)

#: Measures of one topic compared in §3.3 (measure, recall base): AP with a fixed RB = 10 (any
#: constant gives the same comparisons), binary ERR, DCG with both discounts, RBP at four p.
MEASURES = {"AP": (AP(), 10), "ERR": (ERR(), None), "DCG_b02": (DCG(), None),
            "DCG_log2p1": (DCG(discount="log2p1"), None), "RBP_p03": (RBP(p=0.3), None),
            "RBP_p05": (RBP(p=0.5), None), "RBP_p08": (RBP(p=0.8), None), "RBP_p095": (RBP(p=0.95), None)}
#: The measures of the exhaustive rates (beyond the paper).
RATE_MEASURES = ("AP", "ERR", "DCG_b02", "DCG_log2p1", "RBP_p05", "RBP_p08", "RBP_p095")
NOTES = {"s3.3/DCG/interval_like_equal_rel": "with the Järvelin-Kekäläinen base-2 discount ranks 1 and 2 weigh "
         "the same"}
#: The readings of FFP17's DCG, whose discount the paper never defines (ours first): measure key of
#: :data:`MEASURES` -> what it is.
DCG_READINGS = {"DCG_b02": "DCG with the Järvelin-Kekäläinen discount 1/max(1, log2 i) (FFF21's DCG_b02)",
                "DCG_log2p1": "DCG with the discount 1/log2(i + 1)"}


def vec_str(v) -> str:
    """``(0,1,2)``: the compact vector form used in ``data/published/ffp17.csv``."""
    return "(" + ",".join(str(int(x)) for x in np.asarray(v).reshape(-1)) + ")"


# ---------------------------------------------------------- §3.2–3.3 worked examples


def chains_example(counts, r_hat) -> dict:
    """FFP17 §3.2, first example, both ways round (its run r̂ is lost in the text).

    ``counts``: operations per depth printed in the sentence (swaps into ranks 1..N−1, replacements);
    ``r_hat``: the printed cumulative sums R̂. Returns the runs whose chains use ``counts`` (``runs``),
    their R̂ when there is exactly one (``R_hat``), the run read off the printed R̂ (``run_from_R_hat``,
    its first differences) and the operation counts of its chains (``counts_from_R_hat``).
    """
    r_hat = np.asarray(r_hat, dtype=np.int64)
    runs = runs_with_operation_counts(len(r_hat), counts)
    run = np.diff(r_hat, prepend=0)
    return {"runs": runs, "R_hat": tuple(np.cumsum(runs[0]).tolist()) if len(runs) == 1 else None,
            "run_from_R_hat": tuple(run.tolist()), "counts_from_R_hat": chain_operation_counts(run)}


def example1(printed: pd.Series) -> dict:
    """§3.2, first example (REL^4): the operation counts of the sentence and R̂, read from the
    printed items (``printed``: item → value of ``data/published/ffp17.csv``); no swap into rank 1
    is mentioned. :func:`chains_example` plus the counts used and the reproduced ``items``."""
    counts = (0, *(int(read_value(printed[f"ex1/{k}"])) for k in ("swaps_depth2", "swaps_depth3", "replacements")))
    ex = chains_example(counts, [int(x) for x in printed["ex1/R_hat"].strip("()").split(",")])
    items = {} if ex["R_hat"] is None else {"ex1/R_hat": vec_str(np.array(ex["R_hat"]))}
    _, items["ex1/swaps_depth2"], items["ex1/swaps_depth3"], items["ex1/replacements"] = ex["counts_from_R_hat"]
    return {**ex, "counts": counts, "items": items}


def example2() -> dict:
    """§3.2, second example (REL^4): the chain r < v < w < s built with the two basic operators;
    t = Ŝ − R̂ and whether every step is a cover."""
    chain = [np.array(x) for x in ([0, 1, 0, 0], [1, 0, 0, 0], [1, 0, 0, 1], [1, 0, 1, 0])]
    t = cumsums(chain[-1]) - cumsums(chain[0])
    is_cover = [bool(W.leq(a, b)) and int(W.rank(b[None])[0] - W.rank(a[None])[0]) == 1
                for a, b in zip(chain, chain[1:])]
    return {"t": t, "is_cover": is_cover, "items": {"ex2/t": vec_str(t), "ex2/chain_is_maximal": yes_no(all(is_cover))}}


def example3() -> dict:
    """The example after Def. 3: t is printed, the runs are lost; Δ_sr = T = cumulative sums of t,
    against Δ_vu of the printed u, v."""
    T = np.cumsum([0, 1, 1, 1, 2, 1, 1, 1, 0, 1])
    u, v = np.array([1, 0, 0, 1, 0, 1, 1, 1, 0, 0]), np.array([1, 0, 1, 1, 1, 0, 1, 0, 0, 0])
    d_vu = delta(u, v)
    out = {"T": T, "delta_vu": d_vu, "u<=v": bool(W.leq(u, v)), "vu<=sr": bool(interval_leq(d_vu, T)),
           "natural_distance": int(d_vu[-1]) == int(W.rank(v[None])[0] - W.rank(u[None])[0])}
    out["items"] = {"ex3/T": vec_str(T), "ex3/delta_vu": vec_str(d_vu), "ex3/u<=v": yes_no(out["u<=v"]),
                    "ex3/vu<=sr": yes_no(out["vu<=sr"])}
    return out


def example4() -> dict:
    """Single swaps at depth 1 and at depth 10 (N = 10): equal natural distance, Δ_vu ⪯_d Δ_sr."""
    e = np.eye(10, dtype=int)
    d_sr, d_vu = delta(e[1], e[0]), delta(e[9], e[8])
    out = {"delta_sr": d_sr, "delta_vu": d_vu, "natural_distance_sr": int(d_sr[-1]),
           "natural_distance_vu": int(d_vu[-1])}
    out["items"] = {"ex4/delta_sr": vec_str(d_sr), "ex4/delta_vu": vec_str(d_vu),
                    "ex4/natural_distance_sr": out["natural_distance_sr"],
                    "ex4/natural_distance_vu": out["natural_distance_vu"], "ex4/vu<=sr": yes_no(interval_leq(d_vu, d_sr))}
    return out


def agreement(small, big) -> dict[str, bool]:
    """For each of :data:`MEASURES`: M(s) − M(r) ≤ M(v) − M(u) for ``small`` = (r, s), ``big`` = (u, v)."""
    return {k: interval_agrees(m, *small, *big, rb=rb) for k, (m, rb) in MEASURES.items()}


def err_example() -> dict:
    """§3.3's ERR example: r ⪯ s ⪯ u ⪯ v with Δ_sr ⪯_d Δ_vu, where ERR violates."""
    r, s, u, v = (np.array(x) for x in ([0, 0, 0, 0, 0, 0, 1, 1, 1, 0], [0, 0, 0, 0, 0, 1, 0, 1, 1, 0],
                                        [1, 1, 0, 1, 0, 1, 1, 0, 1, 1], [1, 1, 1, 0, 0, 1, 1, 0, 1, 1]))
    chain = bool(W.leq(r, s) and W.leq(s, u) and W.leq(u, v))
    d_sr, d_vu = delta(r, s), delta(u, v)
    agrees = agreement((r, s), (u, v))
    rbp = [k for k in MEASURES if k.startswith("RBP")]
    return {"chain": chain, "delta_sr": d_sr, "delta_vu": d_vu, "sr<=vu": bool(interval_leq(d_sr, d_vu)),
            "agrees": agrees, "items": {
                "ex5/chain": yes_no(chain), "ex5/sr<=vu": yes_no(interval_leq(d_sr, d_vu)),
                "ex5/ERR_violates": yes_no(not agrees["ERR"]), "ex5/RBP_agrees": yes_no(all(agrees[k] for k in rbp)),
                "ex5/AP_agrees": yes_no(agrees["AP"]), "ex5/DCG_agrees": yes_no(agrees["DCG_b02"])}}


def ap_example() -> dict:
    """§3.3's AP example: r ⪯ s ⪯ u with Δ_us ⪯_d Δ_sr strictly, where AP violates ([s, u] is the
    smaller interval)."""
    r, s, u = (np.array(x) for x in ([0] * 10, [0, 1, 0, 0, 1, 0, 0, 0, 0, 1], [0, 1, 0, 0, 1, 1, 1, 0, 0, 1]))
    d_sr, d_us = delta(r, s), delta(s, u)
    strict = bool(interval_leq(d_us, d_sr) and np.any(d_us < d_sr))
    agrees = agreement((s, u), (r, s))
    rbp = [k for k in MEASURES if k.startswith("RBP")]
    return {"delta_sr": d_sr, "delta_us": d_us, "strict": strict, "agrees": agrees, "items": {
        "ex6/su<=rs_strict": yes_no(strict), "ex6/AP_violates": yes_no(not agrees["AP"]),
        "ex6/RBP_agrees": yes_no(all(agrees[k] for k in rbp)), "ex6/ERR_agrees": yes_no(agrees["ERR"]),
        "ex6/DCG_agrees": yes_no(agrees["DCG_b02"])}}


# ------------------------------------------------------------- beyond the paper: exhaustive rates


def interval_like_rates(measures: dict[str, MeasureLike], ns, *, rb=None) -> pd.DataFrame:
    """Exhaustive FFP17 interval-like violation rates on {0,1}^N for every N in ``ns``, over all
    comparable pairs of intervals and over equal-#relevant intervals only.

    ``measures`` maps labels to measures (or callables / value arrays as in
    :func:`measure_values`); ``rb`` (default N) is passed to measures that need a recall base.
    """
    rows = []
    for n in ns:
        runs = binary_runs(n)
        for lab, m in measures.items():
            for em in (False, True):
                res = check_interval_like(m, runs, equal_mass=em, rb=n if rb is None else rb, label=lab)
                rows.append({"N": n, "measure": lab, "restriction": "equal #relevant" if em else "none",
                             "intervals": res.details.get("intervals", 0), "checked": res.n_checked,
                             "violations": res.n_violations, "rate": res.violation_rate,
                             "interval-like": res.holds, "exact": res.exact,
                             "counterexample": format_counterexample(res.counterexample)})
    return pd.DataFrame(rows)

def monotone_table(measures: dict[str, MeasureLike], N: int) -> pd.DataFrame:
    """Is each measure strictly / weakly monotone for the weak order on {0,1}^n (RB = n)? The
    ordinal scale that interval-likeness presupposes."""
    runs = binary_runs(N)
    rows = []
    for k, m in measures.items():
        strict = check_ordinal(m, W, runs, rb=N)
        weak = check_ordinal(m, W, runs, rb=N, strict=False)
        rows.append({"measure": k, "strictly monotone": strict.holds, "violating pairs": strict.n_violations,
                     "of comparable pairs": strict.n_checked, "weakly monotone": weak.holds,
                     "smallest counterexample": strict.row()["counterexample"]})
    return pd.DataFrame(rows)


def rbp_interval_like_threshold(N: int, *, equal_mass: bool = False, lo=Fraction(1, 2),
                                hi=Fraction(99, 100), width=Fraction(1, 2**12)):
    """Bracket (lo, hi) of the p at which RBP_p starts violating FFP17's interval-like property on
    {0,1}^N (exact values at rational p), or None when RBP_p with p = ``hi`` has no violation."""
    runs = binary_runs(N)

    def violates(p: Fraction) -> bool:
        return not check_interval_like(RBP(p=p), runs, equal_mass=equal_mass, label="RBP").holds

    if not violates(Fraction(hi)):
        return None
    return p_threshold(violates, Fraction(lo), Fraction(hi), width)

def rbp_thresholds(ns) -> pd.DataFrame:
    """For each N: the bracket of p above which RBP_p violates over all comparable intervals, and
    whether it violates on equal-#relevant intervals at all (p ≤ 99/100)."""
    rows = []
    for n in ns:
        br = rbp_interval_like_threshold(n, width=Fraction(1, 2**8))
        eq = rbp_interval_like_threshold(n, equal_mass=True)
        rows.append({"N": n, "violations start above p in": f"[{br[0]}, {float(br[1]):.5f}]",
                     "equal #relevant": "no violation for p ≤ 99/100" if eq is None else str(eq)})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------- the last example, searched


def mass_gap_triples(N: int, gap: int = 2, measures: dict | None = None) -> pd.DataFrame:
    """FFP17's last example, searched for: all r̂ ≺ ŝ ≺ û in {0,1}^N with Σû = Σŝ = Σr̂ + ``gap``
    and Δ_ŝr̂ ⪯_d Δ_ûŝ with at least one strict entry. For each triple: the p above which RBP_p
    violates (M(ŝ) − M(r̂) > M(û) − M(ŝ)) — the largest root in (0, 1) of
    Σ_j p^{j−1}((ŝ − r̂) − (û − ŝ))_j, computed per distinct polynomial with numpy and then refined
    exactly — and whether each measure in ``measures`` (default: DCG b=2 and DCG log2(i+1))
    violates."""
    measures = measures or {"DCG_b02": DCG(), "DCG_log2p1": DCG(discount="log2p1")}
    runs = binary_runs(N)
    mass = runs.sum(1)
    cs = np.cumsum(runs, 1)
    le = WeakTopHeaviness(1).leq_matrix(runs)
    vals = {k: measure_values(m, runs) for k, m in measures.items()}
    out = []
    for s in range(len(runs)):
        rs = np.flatnonzero(le[:, s] & (mass == mass[s] - gap))
        us = np.flatnonzero(le[s, :] & (mass == mass[s]))
        us = us[us != s]
        if not len(rs) or not len(us):
            continue
        d_sr = np.cumsum(cs[s] - cs[rs], 1)
        d_us = np.cumsum(cs[us] - cs[s], 1)
        ok = np.all(d_sr[:, None] <= d_us[None], -1) & np.any(d_sr[:, None] < d_us[None], -1)
        i, j = np.nonzero(ok)
        if len(i):
            out.append((np.full(len(i), s), rs[i], us[j]))
    if not out:
        return pd.DataFrame(columns=["r", "s", "u", "rbp_threshold", *measures])
    s_idx, r_idx, u_idx = (np.concatenate(x) for x in zip(*out))
    e = (runs[s_idx] - runs[r_idx]) - (runs[u_idx] - runs[s_idx])
    ue, inv = np.unique(e, axis=0, return_inverse=True)
    thr = np.array([_largest_root_01([int(x) for x in row]) for row in ue])[inv.reshape(-1)]
    df = pd.DataFrame({"r": r_idx, "s": s_idx, "u": u_idx, "rbp_threshold": thr})
    for k, mv in vals.items():
        kk = mv.keys
        df[k] = greater(kk[s_idx] - kk[r_idx], kk[u_idx] - kk[s_idx], mv.tol)
    return df


def _largest_root_01(coeffs: list[int]) -> float:
    """Largest p in (0, 1) where Σ coeffs[k] p^k changes sign (float; 0 if none). Used for the
    distribution over many triples; single thresholds are bracketed exactly with :func:`poly_root`."""
    while coeffs and coeffs[-1] == 0:
        coeffs = coeffs[:-1]
    while coeffs and coeffs[0] == 0:
        coeffs = coeffs[1:]
    if len(coeffs) < 2:
        return 0.0
    c = np.array(coeffs[::-1], dtype=float)
    roots = np.roots(c)
    real = np.sort(roots[np.abs(roots.imag) < 1e-9].real)
    real = real[(real > 1e-9) & (real < 1 - 1e-9)]
    for x in real[::-1]:
        if np.sign(np.polyval(c, x - 1e-7)) != np.sign(np.polyval(c, x + 1e-7)):
            return float(x)
    return 0.0

# --------------------------------------------------------------------------- the conclusions


def conclusions(rates: pd.DataFrame) -> tuple[pd.DataFrame, dict, dict]:
    """Interval-like (over every N of ``rates``) per measure, over all intervals and over equal
    #relevant ones, the §3.3 conclusion items, and the readings of the DCG item (:data:`DCG_READINGS`)."""
    def verdict(measure: str, restriction: str) -> str:
        sub = rates[(rates.measure == measure) & (rates.restriction == restriction)]
        return yes_no(sub["interval-like"].all())

    names = list(dict.fromkeys(rates["measure"]))
    table = pd.DataFrame([{"measure": m, "all intervals": verdict(m, "none"),
                           "equal #relevant": verdict(m, "equal #relevant")} for m in names])
    rbp_eq = all(verdict(m, "equal #relevant") == "yes" for m in names if m.startswith("RBP"))
    readings = {"s3.3/DCG/interval_like_equal_rel": {what: verdict(m, "equal #relevant")
                                                     for m, what in DCG_READINGS.items() if m in names}}
    items = {
        "s3.3/RBP/interval_like_equal_rel": yes_no(rbp_eq),
        "s3.3/DCG/interval_like_equal_rel": verdict("DCG_b02", "equal #relevant"),
        "s3.3/AP/interval_like": yes_no(verdict("AP", "none") == verdict("AP", "equal #relevant") == "yes"),
        "s3.3/ERR/interval_like": yes_no(verdict("ERR", "none") == verdict("ERR", "equal #relevant") == "yes"),
    }
    return table, items, readings


def comparison(items: dict, readings: dict | None = None) -> published.Comparison:
    """``items`` beside ``data/published/ffp17.csv``: worked examples recompute the paper's printed
    runs ("printed"); the conclusions are exhaustive checks over {0,1}^N ("exhaustive"). ``readings``:
    item -> {reading: value} where the paper leaves a convention open (:func:`conclusions`)."""
    kind = published.load("ffp17").set_index("item")["kind"]
    route = {k: "printed" if kind[k] == "example" else "exhaustive" for k in items}
    return published.compare("ffp17", items, route=route, notes=NOTES, readings=readings)


def reproduce(n_rates=range(2, 7), n_search: int = 8) -> dict:
    """Everything notebook 04 shows: the worked examples (``ex1`` … ``ex6``), the exhaustive rates
    on {0,1}^N for N in ``n_rates`` (``rates``, ``monotone`` at the largest N, ``rbp_thresholds``),
    the triples of the last example at N = ``n_search`` (``triples``), the conclusions and the
    published items (``items``)."""
    printed = published.load("ffp17").set_index("item")["value"]
    out = {"ex1": example1(printed), "ex2": example2(), "ex3": example3(), "ex4": example4(),
           "ex5": err_example(), "ex6": ap_example()}
    measures = {k: MEASURES[k][0] for k in RATE_MEASURES}
    out["rates"] = interval_like_rates(measures, n_rates)
    out["monotone"] = monotone_table(measures, max(n_rates))
    out["rbp_thresholds"] = rbp_thresholds(n_rates)
    out["triples"] = mass_gap_triples(n_search)
    out["conclusions"], concl, out["readings"] = conclusions(out["rates"])
    rates = out["rates"]
    out["dcg_cex"] = rates[(rates.measure == "DCG_b02") & (rates.restriction == "equal #relevant")
                           & (rates.N == max(n_rates))]["counterexample"].iloc[0]
    out["items"] = {k: v for key in ("ex1", "ex2", "ex3", "ex4", "ex5", "ex6") for k, v in out[key]["items"].items()}
    out["items"].update(concl)
    return out


# ------------------------------------------------------------------------------------ figures


def plot_interval_like_rates(rates: pd.DataFrame, title: str = ""):
    """Violation rate against N, one panel per restriction (output of :func:`interval_like_rates`)."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True, layout="constrained")
    for ax, restr in zip(axes, ["none", "equal #relevant"]):
        sub = rates[rates.restriction == restr]
        for lab, g in sub.groupby("measure", sort=False):
            ax.plot(g["N"], 100 * g["rate"], marker="o", ms=3, label=lab)
        ax.set_title("all comparable intervals" if restr == "none" else "endpoints with equal #relevant")
        ax.set_xlabel("N")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0].set_ylabel("violating pairs of comparable intervals (%)")
    axes[1].legend(fontsize=8)
    fig.suptitle(title)
    return fig

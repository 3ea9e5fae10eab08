"""FFP19 reproduced: Ferrante, Ferro, Pontarollo, *A general theory of IR evaluation measures*
(IEEE TKDE 2019) — the rank-function identities of its two total orders (§4–5), the ordinal and
interval verdicts of its §6 summary recomputed by exhaustive checks, the §5 counterexample with its
exact gRBP crossing, and the comparison with ``data/published/ffp19.csv``.

:func:`reproduce` returns everything notebook 02 shows; the pieces are :func:`summary` (one
:class:`Case` per row of §6, checked by :mod:`irscales.theory.scales`), :func:`section5`,
:func:`ordinal_onsets`, :func:`reproduced` / :func:`identity_items` (the published items) and
:func:`comparison`. Figures: :func:`plot_vs_rank`, :func:`plot_measures_vs_rbto`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from irscales.exact import to_fraction
from irscales.measures import AP, DCG, ERR, F1, GP, GR, GRBP, RBP, SP, Measure, P, R
from irscales.papers import published
from irscales.papers.printing import read_value, yes_no
from irscales.theory.orders import (
    RunOrder, SetBased, StrongTopHeaviness, as_runs, graded_runs, multiset_runs, relation_str,
)
from irscales.theory.rank_identities import total_order_identities
from irscales.theory.scales import (
    MeasureLike, check_interval, check_ordinal, first_failure, format_counterexample, measure_values,
)
from irscales.theory.thresholds import poly_root

__all__ = [
    "grbp_difference_poly", "poly_str", "contribution_terms", "terms_str", "Case", "cases", "run_case",
    "summary", "min_gain_gap", "section5", "reproduced", "IDENTITY_ITEMS", "identity_items",
    "ordinal_onsets", "SECTION5_RUNS", "GP_EXAMPLE", "threshold_note", "comparison", "reproduce", "plot_vs_rank",
    "plot_measures_vs_rbto",
]

#: FFP19 §5's counterexample r = (a1, a0, a2, a0, a1), s = (a1, a1, a0, a0, a0), c = 2 (typed in).
SECTION5_RUNS = (np.array([1, 0, 2, 0, 1]), np.array([1, 1, 0, 0, 0]))
#: FFP19 §4.2's gP pair: five documents of degree a1 against one of degree a2 (typed in).
GP_EXAMPLE = (np.ones(5, dtype=int), np.array([2, 0, 0, 0, 0]))
#: Notes shown beside the published values.


# ----------------------------------------------------------------- §5: terms and polynomials


def grbp_difference_poly(r, s, gains=None) -> list[int]:
    """Integer coefficients of Σ_i (g(r̂_i) − g(ŝ_i)) p^{i−1}: gRBP_p(r̂) − gRBP_p(ŝ) divided by
    (1 − p)/g_max (FFP19 §5), so its sign for p in (0, 1) decides which run gRBP prefers."""
    r = as_runs(r, what="r").reshape(-1)
    s = as_runs(s, what="s").reshape(-1)
    if r.shape != s.shape:
        raise ValueError(f"runs of different lengths: {r.shape[0]} and {s.shape[0]}")
    g = np.arange(max(int(r.max(initial=0)), int(s.max(initial=0))) + 1) if gains is None else np.asarray(gains)
    return [int(x) for x in (g[r] - g[s])]


def poly_str(coeffs: list[int], var: str = "p", descending: bool = False) -> str:
    """``[1, 0, 2, 0, 1]`` -> ``1 + 2p^2 + p^4`` (the paper's way of writing gRBP polynomials);
    ``descending=True`` puts the highest power first (``[-1, 2, 0, 1]`` -> ``p^3 + 2p - 1``)."""
    parts = []
    terms = list(enumerate(coeffs))
    for k, a in reversed(terms) if descending else terms:
        if a == 0:
            continue
        mono = "" if k == 0 else (var if k == 1 else f"{var}^{k}")
        coef = str(abs(a)) if (abs(a) != 1 or k == 0) else ""
        sign = "-" if a < 0 else "+"
        parts.append((sign, coef + mono))
    if not parts:
        return "0"
    out = ("-" if parts[0][0] == "-" else "") + parts[0][1]
    for sign, term in parts[1:]:
        out += f" {sign} {term}"
    return out


def contribution_terms(measure: str, run, *, max_grade: int = 1, base: int = 2) -> list:
    """Per-rank contributions of a run, as the papers write them out (FFP19 §5 example):

    ``"DCG"``  g_i / log_b(i) for i ≥ b (g_i for i < b), as strings ``"2/log2 3"`` or numbers;
    ``"ERR"``  (1/i) R_i Π_{j<i}(1 − R_j), R_i = (2^{g_i} − 1)/2^{max_grade}, as Fractions;
    ``"SP"``   precision at each relevant rank (lenient: grade > 0), as Fractions (= RB·AP terms).
    Zero contributions are left out.
    """
    run = [int(x) for x in as_runs(run, what="run").reshape(-1)]
    terms: list = []
    if measure == "DCG":
        for i, g in enumerate(run, start=1):
            if g == 0:
                continue
            if i < base:
                terms.append(Fraction(g))
            else:
                lb = math.log(i, base)
                if abs(lb - round(lb)) < 1e-12:  # log_b(i) is an integer: a rational weight
                    terms.append(Fraction(g, round(lb)))
                else:
                    terms.append(f"{g}/log{base} {i}")
        return terms
    if measure == "ERR":
        cont = Fraction(1)
        for i, g in enumerate(run, start=1):
            r = Fraction(2**g - 1, 2**max_grade)
            if r:
                terms.append(cont * r / i)
            cont *= 1 - r
        return terms
    if measure == "SP":
        hits = 0
        for i, g in enumerate(run, start=1):
            if g > 0:
                hits += 1
                terms.append(Fraction(hits, i))
        return terms
    raise ValueError(f"contribution_terms knows 'DCG', 'ERR' and 'SP', not {measure!r}")


def terms_str(terms: list) -> str:
    """Join contributions as the paper prints them: ``1 + 2/log2 3 + 1/log2 5``."""
    return " + ".join(str(t) for t in terms) if terms else "0"


# ------------------------------------------------------------------------- §6 as checks


@dataclass(frozen=True)
class Case:
    """One row of FFP19's §6 summary as a computation: a measure, an order, and its run spaces.

    ``item`` is the item prefix in ``data/published/ffp19.csv`` (``<item>/ordinal``,
    ``<item>/interval``); ``values(runs)`` returns exact values (Fractions) or floats.
    """

    item: str
    label: str
    values: Callable[[np.ndarray], np.ndarray]
    order: RunOrder
    space: Callable[[int], np.ndarray]
    relevance: str


def _mk(m: Measure, **kw) -> Callable[[np.ndarray], np.ndarray]:
    def f(runs: np.ndarray) -> np.ndarray:
        if m.rational:
            return m.exact(runs, **kw)
        return m(runs, **kw)
    return f


def _with_gains(m: Measure, gains) -> Callable[[np.ndarray], np.ndarray]:
    g = np.asarray(gains)

    def f(runs: np.ndarray) -> np.ndarray:
        return m.exact(g[runs]) if m.rational else m(g[runs])
    return f


def cases() -> list[Case]:
    """The measure/order/space combinations behind FFP19's §6 summary (binary: c = 1; graded:
    c = 2 with gains δ(a_i) = i unless stated; G = min gap / g(a_c), FFP19 §5).

    Parameter choices: "p < 1/2" is checked at p = 3/10, "p > 1/2" at 4/5; for gRBP with linear
    gains G = 1/2, so G/(G+1) = 1/3 and "p <" / "p >" use 1/4 and 1/2; the non-linear gain
    (0, 1, 3) has G = 1/3 and is checked at its own G/(G+1) = 1/4. Recall-based measures use
    RB = N (RB·N for gR), any positive constant gives the same verdicts.
    """
    sb1, sb2 = SetBased(1), SetBased(2)
    st1, st2 = StrongTopHeaviness(1), StrongTopHeaviness(2)

    def ms1(n): return multiset_runs(n, 1)
    def ms2(n): return multiset_runs(n, 2)
    def g1(n): return graded_runs(n, 1)
    def g2(n): return graded_runs(n, 2)

    def with_rb(m, scale=1):
        def f(runs):
            return m.exact(runs, rb=scale * runs.shape[1])
        return f

    F = Fraction
    return [
        Case("s6/P", "P", _mk(P()), sb1, ms1, "binary"),
        Case("s6/R", "R (RB=N)", with_rb(R()), sb1, ms1, "binary"),
        Case("s6/F", "F1 (RB=N)", with_rb(F1()), sb1, ms1, "binary"),
        Case("s6/gP", "gP", _mk(GP(max_gain=2)), sb2, ms2, "graded"),
        Case("s6/gR", "gR (RB=2N)", with_rb(GR(), 2), sb2, ms2, "graded"),
        Case("s6/RBP_p<1/2", "RBP p=3/10", _mk(RBP(p=F(3, 10))), st1, g1, "binary"),
        Case("s6/RBP_p=1/2", "RBP p=1/2", _mk(RBP(p=F(1, 2))), st1, g1, "binary"),
        Case("s6/RBP_p>1/2", "RBP p=4/5", _mk(RBP(p=F(4, 5))), st1, g1, "binary"),
        Case("s6/AP", "AP (RB=N)", with_rb(AP()), st1, g1, "binary"),
        Case("s6/gRBP_p<G/(G+1)", "gRBP p=1/4", _mk(GRBP(p=F(1, 4), max_gain=2)), st2, g2, "graded"),
        Case("s6/gRBP_p=G/(G+1)", "gRBP p=1/3", _mk(GRBP(p=F(1, 3), max_gain=2)), st2, g2, "graded"),
        Case("s6/gRBP_p=G/(G+1)_nonlinear_gain", "gRBP p=1/4, g=(0,1,3)",
             _with_gains(GRBP(p=F(1, 4), max_gain=3), [0, 1, 3]), st2, g2, "graded"),
        Case("s6/gRBP_p>G/(G+1)", "gRBP p=1/2", _mk(GRBP(p=F(1, 2), max_gain=2)), st2, g2, "graded"),
        Case("s6/DCG", "DCG b=2 (graded gains)", _mk(DCG(base=2, gains="graded")), st2, g2, "graded"),
        Case("s6/ERR", "ERR", _mk(ERR(max_grade=2)), st2, g2, "graded"),
    ]


def run_case(case: Case, ns) -> dict:
    """Ordinal and interval checks of one case for every N in ``ns``; the verdict is "yes" when the
    property holds for every N checked. Rates are those of the largest N; the counterexample is
    the smallest one at the smallest failing N."""
    out: dict = {"item": case.item, "measure": case.label, "order": str(case.order),
                 "relevance": case.relevance, "N checked": f"{min(ns)}..{max(ns)}"}
    for prop, fn in (("ordinal", check_ordinal), ("interval", check_interval)):
        first, last = None, None
        for n in ns:
            runs = case.space(n)
            res = fn(case.values, case.order, runs, label=case.label)
            last = res
            if first is None and not res.holds:
                first = res
        out[prop] = yes_no(first is None)
        out[f"{prop} first failing N"] = str(first.N) if first else "-"
        out[f"{prop} rate at largest N"] = last.violation_rate
        out[f"{prop} counterexample"] = format_counterexample(first.counterexample) if first else ""
        out[f"{prop} exact"] = last.exact
    return out


def summary(n_binary=range(1, 9), n_graded=range(1, 6)) -> pd.DataFrame:
    """FFP19 §6 recomputed: one row per :func:`cases` case (binary cases over ``n_binary``,
    graded c = 2 cases over ``n_graded``)."""
    rows = []
    for case in cases():
        ns = list(n_binary) if case.relevance == "binary" else list(n_graded)
        rows.append(run_case(case, ns))
    return pd.DataFrame(rows)


# ------------------------------------------------------- §5 counterexample, published items


def min_gain_gap(gains) -> Fraction:
    """FFP19 §5: G = min_j (g(a_j) − g(a_{j−1})) / g(a_c)."""
    g = [to_fraction(x) for x in gains]
    if any(b <= a for a, b in itertools.pairwise(g)) or g[0] != 0:
        raise ValueError(f"gains must start at 0 and increase strictly, got {list(gains)}")
    return min(b - a for a, b in itertools.pairwise(g)) / g[-1]


def section5(r, s, gains=(0, 1, 2)) -> dict:
    """FFP19 §5's counterexample recomputed for runs ``r``, ``s`` (degrees 0..c): the order, the
    per-rank terms of DCG_2, ERR, RB·AP (lenient), the 2gRBP polynomials, and the exact p above which
    gRBP_p prefers r (a root of Σ_i (g(r_i) − g(s_i)) p^{i−1} after removing the factor p^k)."""
    r = as_runs(r, what="r").reshape(-1)
    s = as_runs(s, what="s").reshape(-1)
    c = len(gains) - 1
    pair = np.stack([r, s])
    dcg = [sum(_term_value(t) for t in contribution_terms("DCG", x)) for x in (r, s)]
    err = ERR(max_grade=c).exact(pair)
    sp = SP().exact(pair)
    g = np.asarray(gains)
    coef = grbp_difference_poly(r, s, gains)
    while coef and coef[0] == 0:  # divide by p: the root at 0 is not a crossing in (0, 1)
        coef = coef[1:]
    lo, hi = poly_root(coef, Fraction(0), Fraction(1)) if coef else (None, None)
    scale = int(g[-1] // min(gains[1:])) if all(int(x) == x for x in gains) else 1
    return {
        "order": relation_str(StrongTopHeaviness(c), r, s),
        "DCG2(r)": terms_str(contribution_terms("DCG", r)),
        "DCG2(s)": terms_str(contribution_terms("DCG", s)),
        "DCG2 r>s": yes_no(dcg[0] > dcg[1]),
        "ERR(r)": terms_str(contribution_terms("ERR", r, max_grade=c)),
        "ERR(s)": terms_str(contribution_terms("ERR", s, max_grade=c)),
        "ERR r>s": yes_no(err[0] > err[1]),
        "RB·AP(r)": terms_str(contribution_terms("SP", r)),
        "RB·AP(s)": terms_str(contribution_terms("SP", s)),
        "RB·AP r>s": yes_no(sp[0] > sp[1]),
        f"{scale}gRBP(r)": f"(1 - p)({poly_str([int(x) for x in g[r]])})",
        f"{scale}gRBP(s)": f"(1 - p)({poly_str([int(x) for x in g[s]])})",
        "gRBP threshold": (lo, hi),
        "G": min_gain_gap(gains),
    }


def _term_value(t) -> float:
    if isinstance(t, Fraction):
        return float(t)
    g, rest = t.split("/log")
    b, i = rest.split(" ")
    return int(g) / math.log(int(i), int(b))


def reproduced(table: pd.DataFrame, s5: dict, gp_order: str) -> dict:
    """Items of ``data/published/ffp19.csv`` from :func:`summary`, :func:`section5` and
    the relation of FFP19 §4.2's gP pair (``gp_order``). Verdicts the paper does not state (e.g.
    "P is ordinal", implied by "interval") are left out, so every key is a published item."""
    printed = set(published.load("ffp19")["item"])
    rep: dict = {}
    for row in table.itertuples(index=False):
        for prop in ("ordinal", "interval"):
            key = f"{row.item}/{prop}"
            if key in printed:
                rep[key] = getattr(row, prop)
    lo, hi = s5["gRBP threshold"]
    rep.update({
        "s5/example/order": s5["order"], "s5/DCG2(r)": s5["DCG2(r)"], "s5/DCG2(s)": s5["DCG2(s)"],
        "s5/DCG2/r>s": s5["DCG2 r>s"], "s5/ERR(r)": s5["ERR(r)"], "s5/ERR(s)": s5["ERR(s)"],
        "s5/ERR/r>s": s5["ERR r>s"], "s5/2gRBP(r)": s5["2gRBP(r)"], "s5/2gRBP(s)": s5["2gRBP(s)"],
        "s5/gRBP_threshold": float((lo + hi) / 2), "s5/G": s5["G"],
        "s5/RB·AP(r)": s5["RB·AP(r)"], "s5/RB·AP(s)": s5["RB·AP(s)"], "s5/RB·AP/r>s": s5["RB·AP r>s"],
        "s4.2/gP_example/order": gp_order,
    })
    return rep


#: Published items of ``data/published/ffp19.csv`` answered by each column of
#: :func:`irscales.theory.rank_identities.total_order_identities`.
IDENTITY_ITEMS = {
    "s4/set_based/graded_of_rank_|R(N)|-1": "set-based graded of rank |R(N)|-1",
    "s4/SBTO=rho": "SBTO = ρ_set (eq. 2-3)",
    "s4.1/binary_rho=relevant_count": "binary ρ_set = #relevant",
    "s5/strong/graded_of_rank_(c+1)^N-1": "strong graded of rank (c+1)^N-1",
    "s5/rho=base_c+1": "ρ_strong = base c+1 (eq. 5)",
    "s5/RBTO=rho": "RBTO = ρ_strong (eq. 6)",
}


def identity_items(identities: pd.DataFrame) -> dict[str, str]:
    """The FFP19 published items decided by an :func:`irscales.theory.rank_identities.total_order_identities`
    table ("yes" iff every row holds)."""
    out = {item: yes_no(identities[col].all()) for item, col in IDENTITY_ITEMS.items()}
    out["s4/R(N)_size"] = "C(N+c, N)" if identities["size = C(N+c, N)"].all() else "differs from C(N+c, N)"
    return out

# ------------------------------------------------------------------- beyond §6: where RBP breaks


def ordinal_onsets(n_binary, n_graded, rbp_ps=("11/20", "3/5", "7/10", "4/5", "9/10"),
                   grbp_ps=("7/20", "2/5", "1/2", "3/5")) -> pd.DataFrame:
    """The smallest N at which RBP_p (binary) and gRBP_p (c = 2, gains δ) stop being ordinal for
    strong top-heaviness, for each p above the thresholds of §6 ("—" if none in the N checked)."""
    specs = [(f"RBP p={p}", RBP(p=Fraction(p)), StrongTopHeaviness(1), 1, n_binary) for p in rbp_ps]
    specs += [(f"gRBP p={p} (c=2, δ gains)", GRBP(p=Fraction(p), max_gain=2), StrongTopHeaviness(2), 2, n_graded)
              for p in grbp_ps]
    rows = []
    for label, m, order, c, ns in specs:
        first, _ = first_failure(lambda n: check_ordinal(m, order, graded_runs(n, c)), ns)
        rows.append({"measure": label, "smallest N not ordinal": "—" if first is None else first.N})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ reproduction


def threshold_note(root: float) -> str:
    """How the computed crossing ``root`` of §5's example relates to the paper's printed bound."""
    coef = grbp_difference_poly(*SECTION5_RUNS, (0, 1, 2))
    while coef and coef[0] == 0:
        coef = coef[1:]
    printed = published.load("ffp19").set_index("item").loc["s5/gRBP_threshold", "value"]
    up = read_value(printed) > to_fraction(root)
    how = (f"rounds it up: r beats s for every p ≥ {printed}, as printed" if up
           else "rounds it down: r does not beat s between the printed bound and the root")
    return f"exact root of {poly_str(coef, descending=True)} is {root:.5f}; the paper's 'p ≳ {printed}' {how}"


def comparison(items: dict) -> published.Comparison:
    """``items`` beside ``data/published/ffp19.csv``: worked examples recompute the paper's printed
    runs ("printed"), the rest is exhaustive enumeration of the theory ("exhaustive")."""
    kind = published.load("ffp19").set_index("item")["kind"]
    route = {k: "printed" if kind[k] == "example" else "exhaustive" for k in items}
    notes = {"s5/gRBP_threshold": threshold_note(items["s5/gRBP_threshold"])} if "s5/gRBP_threshold" in items else {}
    return published.compare("ffp19", items, route=route, notes=notes)


def reproduce(n_binary=range(1, 9), n_graded=range(1, 6)) -> dict:
    """Everything notebook 02 shows, for binary runs of length ``n_binary`` and graded (c = 2) runs
    of length ``n_graded``: the identities of §4–5, the §6 summary, the §5 counterexample (with
    Cardano's closed form of the crossing and gRBP at the upper bracket), the ordinal onsets, the
    §4.2 gP relation and the published items (``items``)."""
    identities = total_order_identities(n_binary, n_graded)
    table = summary(n_binary, n_graded)
    r5, s5 = SECTION5_RUNS
    sec5 = section5(r5, s5, gains=(0, 1, 2))
    _, hi = sec5["gRBP threshold"]
    g = GRBP(p=hi, max_gain=2).exact(np.stack([r5, s5]))
    gp_order = relation_str(SetBased(2), *GP_EXAMPLE)
    items = reproduced(table, sec5, gp_order)
    items.update(identity_items(identities))
    return {
        "identities": identities, "summary": table, "section5": sec5,
        "cardano": (0.5 + math.sqrt(0.25 + 8 / 27)) ** (1 / 3) - (math.sqrt(0.25 + 8 / 27) - 0.5) ** (1 / 3),
        "upper_bracket_r>s": bool(g[0] > g[1]), "onsets": ordinal_onsets(n_binary, n_graded),
        "gp_order": gp_order, "items": items,
    }


# ------------------------------------------------------------------------------------ figures


def plot_vs_rank(measures: dict[str, MeasureLike], order: RunOrder, runs: np.ndarray, ax=None, title: str = ""):
    """Each measure (min-max normalised) against the rank function ρ of ``order``: a straight line
    is an interval scale (FFP19 §2), a monotone curve an ordinal one."""
    import matplotlib.pyplot as plt

    runs = as_runs(runs, order.c)
    rho = np.asarray(order.rank(runs), dtype=float)
    srt = np.argsort(rho, kind="stable")
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    for lab, m in measures.items():
        mv = measure_values(m, runs, label=lab)
        v = np.array([float(mv.value(i)) for i in range(len(runs))])
        span = v.max() - v.min()
        ax.plot(rho[srt], (v[srt] - v.min()) / (span if span else 1), lw=1, label=lab)
    ax.set_xlabel(f"ρ ({order})")
    ax.set_ylabel("measure, min-max normalised")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return ax


def plot_measures_vs_rbto():
    """FFP19 figure of ours: RBP (binary, N = 6) and gRBP (c = 2, gains δ, N = 4) against RBTO, at p
    below, at and above the thresholds of §6."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    plot_vs_rank({"RBP p=3/10": RBP(p=Fraction(3, 10)), "RBP p=1/2": RBP(p=Fraction(1, 2)),
                  "RBP p=4/5": RBP(p=Fraction(4, 5)), "AP (RB=6)": (lambda r: AP().exact(r, rb=6))},
                 StrongTopHeaviness(1), graded_runs(6, 1), ax=axes[0], title="binary, N = 6")
    plot_vs_rank({"gRBP p=1/4": GRBP(p=Fraction(1, 4), max_gain=2), "gRBP p=1/3": GRBP(p=Fraction(1, 3), max_gain=2),
                  "gRBP p=1/2": GRBP(p=Fraction(1, 2), max_gain=2)},
                 StrongTopHeaviness(2), graded_runs(4, 2), ax=axes[1], title="graded c = 2, gains δ, N = 4")
    fig.suptitle("FFP19: measures against the rank function of strong top-heaviness (RBTO)")
    return fig

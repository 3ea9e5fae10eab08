"""FFF21 claims that follow from numbers the paper itself prints (FFF21 §3.2, §6 footnotes 7–8, §7).

Nothing here needs TREC runs: the inputs are the printed Tables 2–6 of FFF21, read from
``data/published/fff21.csv`` (:func:`irscales.papers.published.load`), the system counts of §6, and the
arithmetic of the footnotes. Printed decimals are read exactly (:func:`irscales.papers.printing.read`), so
every minimum, maximum, mean and ratio below is exact; values are returned as floats only for display.

Three families of results:

* internal consistency of the tables: Table 4's Δ% against its own Msr and RnkMsr columns
  (:func:`table4_delta_checks`), Tables 5–6's S2NS%, NS2S% and Δ% against their own counts
  (:func:`significance_percent_checks`);
* the range / percentage sentences of §7 (:func:`section7_claims`), each with the exact cells it is
  computed on and the reading chosen where the text is loose;
* small arithmetic: system pairs C(n, 2) (§7.3), memory of all runs (footnote 8), run-space sizes
  (§6, footnote 7), the uniform toy variable of §3.2.

"Loss in intervalness" (§7.1) is 1 − τ, in percent; Δ% of Table 4 is 100·(RnkMsr/Msr − 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Iterable

import pandas as pd

from irscales.papers import printing
from irscales.papers.printing import yes_no

__all__ = [
    "Claim", "parse_printed", "table2", "table4", "significance_tables", "delta_percent",
    "table4_delta_checks", "significance_percent_checks", "section7_claims", "system_pairs",
    "pair_count_claims", "footnote_claims", "explain",
    "all_runs_memory", "toy_variable", "INTERVAL_TESTS", "ORDINAL_TESTS", "UNCHANGED_TESTS",
]

#: Tests that assume an interval scale / only an ordinal one (FFF21 §7.3, the grey rows of Tables 5–6).
INTERVAL_TESTS = ("Wilcoxon Signed Rank Test", "Student's t Test", "One-way ANOVA", "Two-way ANOVA")
ORDINAL_TESTS = ("Sign Test", "Wilcoxon Rank Sum Test", "Kruskal-Wallis Test", "Friedman Test")
#: The ordinal tests whose decisions the ranked versions never change (Table 6: Δ% = 0 in every cell, §7.3.2).
UNCHANGED_TESTS = ("Sign Test", "Friedman Test")


#: How every note of a recomputed claim starts (see :data:`irscales.papers.report.RECOMPUTED_PREFIX`).
RECOMPUTED = "recomputed from the paper's printed Tables 2–6"


@dataclass(frozen=True)
class Claim:
    """One recomputed claim: the published item it answers, our value, how it was computed, how far
    the exact value may be from ours because the inputs were printed rounded (``spread``), and, where
    the text can be read in several ways, every reading's value (``readings``, ours first)."""

    item: str
    value: object
    note: str
    spread: float | None = None
    readings: dict | None = None


def parse_printed(text: str) -> Fraction:
    """A printed number as an exact Fraction (:func:`irscales.papers.printing.read_value`): ``'0.9498'``,
    ``'+5.29%'`` (5.29), ``'-11.60%'``, ``'8,256'``; text that is no number is an error."""
    v = printing.read_value(text)
    if v is None:
        raise ValueError(f"not a printed number: {text!r}")
    return v


def _split(pub: pd.DataFrame, prefix: str, names: list[str]) -> pd.DataFrame:
    rows = pub[pub["item"].str.startswith(prefix + "/")]
    if rows.empty:
        raise ValueError(f"no {prefix} items in the published frame")
    parts = rows["item"].str.split("/", expand=True).iloc[:, 1:]
    parts.columns = names
    out = parts.assign(value=[parse_printed(v) for v in rows["value"]])
    return out.reset_index(drop=True)


def table2(pub: pd.DataFrame, table: str = "table2") -> pd.DataFrame:
    """Printed Table 2 (or 3): one row per track_N and measure, exact τ; columns track, N, measure, tau."""
    t = _split(pub, table, ["track", "measure"]).rename(columns={"value": "tau"})
    t["N"] = t["track"].str.split("_").str[1].astype(int)
    return t


def table4(pub: pd.DataFrame) -> pd.DataFrame:
    """Printed Table 4 wide: track, pair, Msr, RnkMsr, Delta% (exact Fractions)."""
    t = _split(pub, "table4", ["track", "pair", "col"])
    w = t.pivot(index=["track", "pair"], columns="col", values="value").reset_index()
    w.columns.name = None
    return w


def significance_tables(pub: pd.DataFrame) -> pd.DataFrame:
    """Printed Tables 5 and 6 wide: table, track, measure, test, Sig, S2NS, S2NS%, NS2S, NS2S%, Delta%."""
    frames = []
    for tab in ("table5", "table6"):
        t = _split(pub, tab, ["track", "measure", "test", "col"])
        w = t.pivot(index=["track", "measure", "test"], columns="col", values="value").reset_index()
        w.columns.name = None
        frames.append(w.assign(table=tab))
    return pd.concat(frames, ignore_index=True)


def delta_percent(msr: Fraction, rnk: Fraction) -> Fraction:
    """Table 4's Δ%: percent change of the ranked correlation with respect to the original one."""
    return 100 * (Fraction(rnk) / Fraction(msr) - 1)


def _half_unit(printed: str) -> Fraction:
    return printing.read(printed).unit / 2


def table4_delta_checks(pub: pd.DataFrame) -> list[Claim]:
    """Every Δ% of Table 4 recomputed from the printed Msr and RnkMsr of its row.

    Msr and RnkMsr are printed to 4 decimals, so the true Δ% is only known to lie in the range spanned by
    Msr ± 0.00005 and RnkMsr ± 0.00005; the spread of each item is the largest change of Δ% over that
    range, i.e. a printed Δ% agrees iff some correlations that round to the printed Msr and RnkMsr give it.
    """
    raw = pub.set_index("item")["value"]
    out = []
    for r in table4(pub).itertuples(index=False):
        msr, rnk = r.Msr, r.RnkMsr
        base = f"table4/{r.track}/{r.pair}"
        hm, hr = _half_unit(raw[f"{base}/Msr"]), _half_unit(raw[f"{base}/RnkMsr"])
        ours = delta_percent(msr, rnk)
        corners = [delta_percent(msr + a, rnk + b) for a in (-hm, hm) for b in (-hr, hr)]
        spread = max(abs(c - ours) for c in corners)
        out.append(Claim(f"{base}/Delta%", float(ours),
                         f"recomputed from the paper's printed Table 4 row: 100·(RnkMsr/Msr − 1) = {float(ours):+.4f}% "
                         f"(printed τ to 4 decimals leave ±{float(spread):.4f} points)", spread))
    return out


def significance_percent_checks(pub: pd.DataFrame) -> list[Claim]:
    """S2NS%, NS2S% and Δ% of every cell of Tables 5–6 recomputed from the printed Sig, S2NS and NS2S (exact)."""
    out = []
    for r in significance_tables(pub).to_dict("records"):
        base = f"{r['table']}/{r['track']}/{r['measure']}/{r['test']}"
        sig = r["Sig"]
        if sig == 0:
            continue
        for col, num, formula in (("S2NS%", r["S2NS"], "S2NS/Sig"), ("NS2S%", r["NS2S"], "NS2S/Sig"),
                                  ("Delta%", r["S2NS"] + r["NS2S"], "(S2NS + NS2S)/Sig")):
            pct = 100 * Fraction(num) / sig
            out.append(Claim(f"{base}/{col}", float(pct),
                             f"recomputed from the paper's printed counts of the same cell: {formula} = "
                             f"{num}/{sig} = {float(pct):.4f}%"))
    return out


def system_pairs(n_systems: int) -> int:
    """Number of unordered system pairs C(n, 2) a significance test compares (FFF21 §7.3)."""
    if n_systems < 0:
        raise ValueError(f"number of systems must be non-negative, got {n_systems}")
    return math.comb(n_systems, 2)


def all_runs_memory(N: int, bits_per_digit: int) -> Fraction:
    """Bytes needed to hold all 2^N binary runs of length N (FFF21 footnote 8), exact.

    ``bits_per_digit`` is 64 for a Matlab double, 1 for a packed bit: 2^N · N · bits_per_digit / 8.
    """
    return Fraction(2**N * N * bits_per_digit, 8)


def toy_variable(values: Iterable[int]) -> dict:
    """The uniform toy variable of FFF21 §3.2: mean, median and where the mass is denser.

    ``eps_threshold`` is the smallest ε at which P[X ∈ [x − ε, x + ε]], evaluated at the values x of X, is
    not the same for every x (closed intervals; it is the smallest gap between two values); ``mass_at``
    gives those probabilities at that ε.
    """
    xs = sorted(Fraction(v) for v in values)
    if len(xs) < 2 or len(set(xs)) != len(xs):
        raise ValueError("toy variable needs at least two distinct values")
    n = len(xs)
    eps = min(b - a for a, b in zip(xs, xs[1:]))
    mass = {x: Fraction(sum(1 for y in xs if abs(y - x) <= eps), n) for x in xs}
    mid = n // 2
    median = xs[mid] if n % 2 else (xs[mid - 1] + xs[mid]) / 2
    return {"mean": sum(xs) / n, "median": median, "eps_threshold": eps, "mass_at": mass}


def pair_count_claims(pub: pd.DataFrame) -> list[Claim]:
    """§7.3's "system pairs" of each track, C(n, 2) from the number of runs printed in §6 (``s6/systems/*``)."""
    raw = pub.set_index("item")["value"]
    out = []
    for coll in ("T08", "T26", "T27"):
        n = int(parse_printed(raw[f"s6/systems/{coll}"]))
        out.append(Claim(f"s7.3/pairs/{coll}_30", system_pairs(n),
                         f"recomputed from the paper's printed §6 run count: C({n}, 2) = {n}·{n - 1}/2 = {system_pairs(n)}"))
    return out


def _power_of_ten(x: int) -> str:
    return f"10^{round(math.log10(x))}"


def footnote_claims() -> list[Claim]:
    """§6 run-space sizes and footnotes 7–8 of FFF21, recomputed (inputs: the N, the digit sizes)."""
    gib, tib = 2**30, 2**40
    out = [Claim("s6/run_space/N=5", 2**5, "2^5 binary runs of length 5")]
    out += [Claim(f"s6/run_space/N={n}", _power_of_ten(2**n), f"2^{n} = {2**n:,} runs, order of magnitude")
            for n in (10, 20, 30)]
    out += [Claim("fn7/binary/N=30", _power_of_ten(2**30), f"2^30 = {2**30:,}"),
            Claim("fn7/4-valued/N=30", _power_of_ten(4**30), f"4^30 = {4**30:,}"),
            Claim("fn7/4^30=2^60", yes_no(4**30 == 2**60), "exact integers")]
    b30, b40, bit40 = all_runs_memory(30, 64), all_runs_memory(40, 64), all_runs_memory(40, 1)
    out += [Claim("fn8/N=30/double/GByte", float(b30 / gib), f"2^30·30·8 = {int(b30):,} bytes = {b30 / gib} GiB"),
            Claim("fn8/N=40/double/TByte", float(b40 / tib), f"2^40·40·8 = {int(b40):,} bytes = {b40 / tib} TiB"),
            Claim("fn8/N=40/bit/TByte", float(bit40 / tib),
                  f"2^40·40 bits = 2^40·40/8 = {int(bit40):,} bytes = {bit40 / tib} TiB ({float(bit40) / 1e12:.1f} TB); "
                  f"the footnote's 40 is the size in Tibit (2^40·40 bits), i.e. bits counted as bytes")]
    return out


# ----------------------------------------------------------------------------- §7 sentences


def _pct(x: Fraction) -> str:
    return f"{float(x):.2f}%"


def _loss(tau: Fraction) -> Fraction:
    return 100 * (1 - tau)


def _range_claims(item: str, cells: pd.DataFrame, what: str, tau_items: bool = True) -> list[Claim]:
    """min/max of τ and of the loss 1 − τ over ``cells`` (columns track, measure, tau)."""
    lo, hi = cells.loc[cells["tau"].idxmin()], cells.loc[cells["tau"].idxmax()]
    where = f"{what}: {len(cells)} cells, min {float(lo.tau):.4f} ({lo.measure} {lo.track}), max {float(hi.tau):.4f} ({hi.measure} {hi.track})"
    out = []
    if tau_items:
        out += [Claim(f"{item}/tau_min", float(lo.tau), where), Claim(f"{item}/tau_max", float(hi.tau), where)]
    out += [Claim(f"{item}/loss_min", float(_loss(hi.tau)), f"1 − τ of the largest τ; {where}"),
            Claim(f"{item}/loss_max", float(_loss(lo.tau)), f"1 − τ of the smallest τ; {where}")]
    return out


def _delta_range(item: str, rows: pd.DataFrame, what: str, sign: int = 1) -> list[Claim]:
    """min/max of |Δ%| (sign = −1 for 'overestimated' sentences quoting magnitudes) over Table 4 rows."""
    vals = [(sign * d, f"{p} {t}") for d, p, t in zip(rows["Delta%"], rows["pair"], rows["track"])]
    lo, hi = min(vals), max(vals)
    note = f"{what}: printed Δ% of {len(vals)} rows, from {_pct(lo[0])} ({lo[1]}) to {_pct(hi[0])} ({hi[1]})"
    return [Claim(f"{item}/min", float(lo[0]), note), Claim(f"{item}/max", float(hi[0]), note)]


def section7_claims(pub: pd.DataFrame) -> list[Claim]:
    """The range and percentage sentences of FFF21 §7, recomputed from the printed Tables 2–6.

    Readings (chosen to match the text where it is loose, and stated in each note):
    ranges are the min and max over the named cells; "loss in intervalness" is 1 − τ; cells equal to
    1.0000 that the text discusses separately (DCG_b10 and nDCG_b10 at N ≤ 10) are left out of the DCG
    and nDCG ranges; the §7.3 averages are plain means of the printed percentage cells over tracks,
    measures and tests of the named group (Table 5 without P and RBP_p05, which are interval scales
    and change nothing).
    """
    t2, t3, t4, sig = table2(pub), table2(pub, "table3"), table4(pub), significance_tables(pub)
    out: list[Claim] = []

    def col(frame, *measures, where=None):
        sel = frame[frame["measure"].isin(measures)]
        return sel if where is None else sel[where(sel)]

    # §7.1.1 --------------------------------------------------------------------------------
    out += _range_claims("s7.1.1/RR", col(t2, "RR"), "Table 2, column RR")
    others = t2[t2["measure"].isin(["P", "RBP_p05", "RBP_p03", "RBP_p08", "DCG_b02", "DCG_b10"])]
    rr = col(t2, "RR").set_index("track")["tau"]
    lowest = all(rr[tr] < g["tau"].min() for tr, g in others.groupby("track"))
    out.append(Claim("s7.1.1/RR/lowest_of_group", yes_no(lowest),
                     "in every row of Table 2, RR is below P, RBP_p03/05/08 and DCG_b02/b10"))
    dec = all(list(g.sort_values("N")["tau"]) == sorted(g["tau"], reverse=True) and g["tau"].is_unique
              for _, g in col(t2, "RR").assign(coll=lambda d: d["track"].str[:3]).groupby("coll"))
    out.append(Claim("s7.1.1/RR/decreasing_in_N", yes_no(dec), "Table 2, column RR: strictly decreasing in N on T08, T26 and T27"))
    for m in ("P", "RBP_p05"):
        out.append(Claim(f"s7.1.1/{m}/always_1", yes_no(bool((col(t2, m)["tau"] == 1).all())), f"Table 2, column {m}: every row 1.0000"))
    out += _range_claims("s7.1.1/RBP_p03", col(t2, "RBP_p03"), "Table 2, column RBP_p03")
    out += _range_claims("s7.1.1/RBP_p08", col(t2, "RBP_p08"), "Table 2, column RBP_p08")
    dcg = col(t2, "DCG_b02", "DCG_b10", where=lambda d: d["tau"] < 1)
    out.append(Claim("s7.1.1/DCG/above_0.9", yes_no(bool((col(t2, "DCG_b02", "DCG_b10")["tau"] > Fraction(9, 10)).all())),
                     f"Table 2, DCG_b02 and DCG_b10: smallest τ {float(dcg['tau'].min()):.4f}"))
    out += _range_claims("s7.1.1/DCG", dcg, "Table 2, DCG_b02 and DCG_b10 below 1.0000 (DCG_b10 at N = 5, 10 is 1.0000, "
                         "discussed separately)", tau_items=False)
    b10 = col(t2, "DCG_b10", where=lambda d: d["N"] <= 10)
    out.append(Claim("s7.1.1/DCG_b10/N<=10_always_1", yes_no(bool((b10["tau"] == 1).all())), "Table 2, DCG_b10 rows _05 and _10"))

    # §7.1.2 --------------------------------------------------------------------------------
    out += _range_claims("s7.1.2/R", col(t2, "R"), "Table 2, column R")
    out += _range_claims("s7.1.2/AP", col(t2, "AP"), "Table 2, column AP")
    ndcg_all = col(t2, "nDCG_b02", "nDCG_b10")
    ndcg = ndcg_all[(ndcg_all["measure"] == "nDCG_b02") | (ndcg_all["N"] >= 20)]
    out.append(Claim("s7.1.2/nDCG/above_0.9", yes_no(bool((ndcg_all["tau"] > Fraction(9, 10)).all())),
                     f"Table 2, nDCG_b02 and nDCG_b10: smallest τ {float(ndcg_all['tau'].min()):.4f}"))
    out += _range_claims("s7.1.2/nDCG", ndcg, "Table 2, nDCG_b02 and nDCG_b10 at N ≥ 20 (nDCG_b10 at N ≤ 10 is "
                         "1.0000 or just below it, discussed separately)", tau_items=False)

    # §7.1.3 --------------------------------------------------------------------------------
    p3 = col(t3, "P")
    out += [c for c in _range_claims("s7.1.3/P_mid", p3, "Table 3 (mid-rank ties), column P") if "/tau_" in c.item]
    out.append(Claim("s7.1.3/RBP_p05_mid/always_1", yes_no(bool((col(t3, "RBP_p05")["tau"] == 1).all())),
                     "Table 3, column RBP_p05: every row 1.0000"))

    # §7.2 ----------------------------------------------------------------------------------
    d = t4["Delta%"]
    out += _delta_range("s7.2/overestimated", t4[d < 0], "Table 4, negative Δ%")
    out += _delta_range("s7.2/underestimated", t4[d > 0], "Table 4, positive Δ%")
    p5 = t4[t4["pair"] == "P vs RBP_p05"]
    out.append(Claim("s7.2.1/P_vs_RBP_p05/same_ranked", yes_no(bool((p5["Msr"] == p5["RnkMsr"]).all())),
                     "Table 4, row P vs RBP_p05: Msr = RnkMsr on T08_30, T26_30, T27_30"))
    r35 = t4[(t4["pair"] == "RBP_p05 vs RBP_p03") & (t4["track"] == "T08_30")].iloc[0]
    out.append(Claim("s7.2.1/RBP_p03_vs_RBP_p05/underestimation", float(delta_percent(r35.Msr, r35.RnkMsr)),
                     f"Table 4, T08_30: 100·({float(r35.RnkMsr):.4f}/{float(r35.Msr):.4f} − 1)"))
    t2_30 = t2[t2["N"] == 30].set_index("track")
    same = all(t2_30[(t2_30["measure"] == "RBP_p03")].loc[tr, "tau"] == g["Msr"].iloc[0]
               for tr, g in t4[t4["pair"] == "RBP_p05 vs RBP_p03"].groupby("track"))
    out.append(Claim("s7.2.1/RBP_p03_vs_RBP_p05/equals_table2", yes_no(same),
                     "Table 4 Msr of RBP_p05 vs RBP_p03 equals Table 2's RBP_p03 at N = 30 on every track"))
    group = {"P", "RBP_p05", "RBP_p03", "RBP_p08", "DCG_b02", "DCG_b10"}
    rr_rows = t4[t4["pair"].map(lambda p: "RR" in p.split(" vs ") and set(p.split(" vs ")) - {"RR"} <= group)]
    for tr, g in rr_rows.groupby("track"):
        out += _delta_range(f"s7.2.1/RR_overestimation/{tr}", g, f"Table 4, {tr}, RR against P, RBP and DCG (magnitude of Δ%)", -1)
    for tr, g in t4[t4["pair"] == "R vs P"].groupby("track"):
        out.append(Claim(f"s7.2.2/P_vs_R/underestimation/{tr}", float(g["Delta%"].iloc[0]), f"Table 4, R vs P, {tr}: printed Δ%"))
    same_base = t4[t4["pair"].isin(["nDCG_b02 vs DCG_b02", "nDCG_b10 vs DCG_b10"])]
    out += _delta_range("s7.2.2/DCG_vs_nDCG", same_base, "Table 4, nDCG vs DCG with the same log base")
    ap_pr = t4[t4["pair"].isin(["AP vs P", "R vs AP"])]
    same_rnk = all(g["RnkMsr"].nunique() == 1 for _, g in ap_pr.groupby("track"))
    out.append(Claim("s7.2.2/AP_vs_P_R/same_ranked", yes_no(same_rnk), "Table 4: RnkMsr of AP vs P equals that of R vs AP on every track"))
    out += _delta_range("s7.2.2/AP_vs_P_R", ap_pr, "Table 4, AP vs P and R vs AP")
    ap_dcg = t4[t4["pair"].isin(["AP vs DCG_b02", "AP vs DCG_b10"])]
    out += _delta_range("s7.2.2/AP_vs_DCG", ap_dcg, "Table 4, AP vs DCG_b02 and AP vs DCG_b10")
    lo, hi = ap_dcg.loc[ap_dcg["RnkMsr"].idxmin()], ap_dcg.loc[ap_dcg["RnkMsr"].idxmax()]
    note = (f"Table 4, AP vs DCG_b02/b10, RnkMsr: from {float(lo.RnkMsr):.4f} ({lo.pair} {lo.track}) "
            f"to {float(hi.RnkMsr):.4f} ({hi.pair} {hi.track})")
    out += [Claim("s7.2.2/AP_vs_DCG/ranked_min", float(lo.RnkMsr), note), Claim("s7.2.2/AP_vs_DCG/ranked_max", float(hi.RnkMsr), note)]

    # §7.3 ----------------------------------------------------------------------------------
    def mean_pct(rows, c):
        return sum(rows[c], Fraction(0)) / len(rows)

    t5, t6 = sig[sig["table"] == "table5"], sig[sig["table"] == "table6"]
    # One reading for the whole passage ("an overall average increase in the S2NS count around …"): the
    # averages span the cells whose decisions can change — Table 5 without P and RBP_p05 (interval scales
    # already), Table 6 without the Sign and Friedman tests (they compare systems within a topic). It
    # reproduces five of the six averages; averaging every cell instead reproduces three (the note of each
    # item gives its value under both).
    never = t5["measure"].isin(["P", "RBP_p05"]) | t5["test"].isin(UNCHANGED_TESTS)
    groups = {
        "no_RB_interval": (t5[t5["test"].isin(INTERVAL_TESTS)], never, "Table 5, interval-scale tests"),
        "RB_ordinal": (t6[t6["test"].isin(ORDINAL_TESTS)], t6["test"].isin(UNCHANGED_TESTS),
                       "Table 6, ordinal-scale tests"),
        "RB_interval": (t6[t6["test"].isin(INTERVAL_TESTS)], t6["test"].isin(UNCHANGED_TESTS),
                        "Table 6, interval-scale tests"),
    }
    for key, (rows, unchangeable, what) in groups.items():
        changing = rows[~unchangeable.loc[rows.index]]
        left_out = ("P and RBP_p05" if key == "no_RB_interval" else " and ".join(UNCHANGED_TESTS))
        for c in ("S2NS%", "NS2S%"):
            m, every = mean_pct(changing, c), mean_pct(rows, c)
            other = (f"; averaging all {len(rows)} cells instead gives {float(every):.4f}%" if len(changing) < len(rows)
                     else "; every cell can change, so both readings agree")
            out.append(Claim(f"s7.3/{key}/{c.rstrip('%')}_mean", float(m),
                             f"§7.3's averages read, for the whole passage, over the cells whose decisions can change: "
                             f"mean of the printed {c} of {len(changing)} cells ({what}, 3 tracks"
                             + (f", without {left_out}" if len(changing) < len(rows) else "")
                             + f") = {float(m):.4f}%{other}"))
    ordinal5 = t5[t5["test"].isin(ORDINAL_TESTS)]
    out.append(Claim("s7.3/no_RB_ordinal_unaffected", yes_no(bool(((ordinal5["S2NS"] == 0) & (ordinal5["NS2S"] == 0)).all())),
                     "Table 5, ordinal-scale tests: S2NS = NS2S = 0 in every cell"))
    pr = t5[t5["measure"].isin(["P", "RBP_p05"])]
    out.append(Claim("s7.3.1/P_RBP_p05_no_change", yes_no(bool(((pr["S2NS"] == 0) & (pr["NS2S"] == 0)).all())),
                     "Table 5, blocks P and RBP_p05: S2NS = NS2S = 0 in every cell"))
    key = ["track", "test"]
    r3 = t5[(t5["measure"] == "RBP_p03") & t5["test"].isin(ORDINAL_TESTS)].set_index(key)["Sig"]
    r5 = t5[(t5["measure"] == "RBP_p05") & t5["test"].isin(ORDINAL_TESTS)].set_index(key)["Sig"]
    out.append(Claim("s7.3.1/RBP_p03_ordinal_same_as_RBP_p05", yes_no(bool((r3.sort_index() == r5.sort_index()).all())),
                     "Table 5: Sig of the ordinal-scale tests is the same for RBP_p03 and RBP_p05 on every track"))
    # only the statistics the text quotes: RBP_p03 "Δ% 2%–29%, NS2S up to 28%, S2NS around 1%";
    # RBP_p08 "S2NS up to 17%, NS2S around 2%"
    quoted = {"RBP_p03": (("Delta%", "min"), ("Delta%", "max"), ("NS2S%", "max"), ("S2NS%", "mean")),
              "RBP_p08": (("S2NS%", "max"), ("NS2S%", "mean"))}
    for m, stats in quoted.items():
        rows = t5[(t5["measure"] == m) & t5["test"].isin(INTERVAL_TESTS)]
        what = f"Table 5, {m}, interval-scale tests, 3 tracks ({len(rows)} cells)"
        for c, stat in stats:
            v = {"min": rows[c].min(), "max": rows[c].max(), "mean": mean_pct(rows, c)}[stat]
            out.append(Claim(f"s7.3.1/{m}/{c.rstrip('%')}_{stat}", float(v), f"{what}: {stat} of the printed {c} = {float(v):.4f}%"))
    sf = t6[t6["test"].isin(UNCHANGED_TESTS)]
    others6 = t6[t6["test"].isin(["Wilcoxon Rank Sum Test", "Kruskal-Wallis Test"])]
    out.append(Claim("s7.3.2/ordinal_affected_except_sign_friedman",
                     yes_no(bool((sf["Delta%"] == 0).all() and (others6["Delta%"] > 0).any())),
                     "Table 6: Sign and Friedman have Δ% = 0 everywhere, Wilcoxon Rank Sum and Kruskal-Wallis do not"))
    top = others6.loc[others6["Delta%"].idxmax()]
    out.append(Claim("s7.3.2/ordinal_delta_max", float(top["Delta%"]),
                     f"Table 6, ordinal-scale tests other than Sign and Friedman: largest Δ% ({top.measure}, {top.test}, {top.track})"))
    rec = t6[t6["measure"] == "R"]
    top = rec.loc[rec["NS2S%"].idxmax()]
    out.append(Claim("s7.3.2/R/NS2S_max", float(top["NS2S%"]), f"Table 6, block R: largest NS2S% ({top.test}, {top.track})"))
    return _no_duplicates(out)


def _no_duplicates(claims: list[Claim]) -> list[Claim]:
    seen = set()
    for c in claims:
        if c.item in seen:
            raise AssertionError(f"claim {c.item} computed twice")
        seen.add(c.item)
    # the report reads this prefix as "a reproduction from printed inputs", not a simulation
    return [replace(c, note=f"{RECOMPUTED}: {c.note}") for c in claims]


# Why a printed §7 figure can disagree with the table it summarises (filled in by :func:`explain`).
_WHY = {
    "s7.1.1/RBP_p08/loss_min": "the text's figure is 1 minus the upper end of its own τ range, which is itself too low",
    "s7.1.2/R/loss_min": "the text's figure is 1 minus the upper end of its τ range rounded to one decimal, "
                         "not 1 minus the largest τ of the table",
    "s7.1.2/AP/loss_min": "the text's figure is 1 minus the upper end of its own τ range, which is itself too low",
    "s7.1.2/nDCG/loss_max": "the text's figure is 1 minus the bound 0.9 of 'all above 0.9', not 1 minus the smallest τ",
    "fn8/N=40/bit/TByte": "the footnote counts 2^40·40 bits as bytes",
}


def explain(claim: Claim, printed: str) -> str:
    """The claim's note, plus why it disagrees with ``printed`` when it does (for the comparison file):
    the known reason, or for the end of a range that is wrong at the printed precision, that the
    table's extreme gives another value."""
    end = printing.range_end(claim.item)
    a = printing.agreement(printed, claim.value, spread=claim.spread or 0, end=end)
    if a.reproduced:
        return claim.note
    why = _WHY.get(claim.item)
    if why is None and end is not None and a.kind == "differs":
        why = "the extreme of the table's cells is another value at the printed precision"
    return f"{claim.note}. Printed {printed}: {why}" if why else claim.note

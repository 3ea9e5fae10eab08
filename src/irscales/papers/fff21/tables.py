"""FFF21 Tables 2–4 (§7.1–7.2) from the ranked scores of :mod:`irscales.papers.fff21.ranked`, their CSV
files and the comparison with the printed values; :func:`reproduce_tables` is the notebook's entry
(notebooks/01b_fff21_tables.ipynb). Tables 5–6 are :mod:`irscales.papers.fff21.significance_tables`.

* :func:`table2` / :func:`table3` — overall Kendall τ_b between each measure and its ranked version
  (``unq`` / ``mid``), one row per (track, N) named like the paper's ``T08_05`` (``sim-T08_05`` for a
  simulated collection); :func:`topic_by_topic_check` — the §7.1 sanity check that τ per topic is 1.
* :func:`table4` — overall τ of every pair of measures (Msr) and of their ranked versions (RnkMsr),
  Δ% = (RnkMsr − Msr)/Msr · 100, pairs in the paper's order (:data:`TABLE4_PAIRS`).
* :func:`float_ap_taus` — τ(AP, AP_R) on float scales of AP (issue 15); :func:`difference_notes` —
  why items computed on real T08 runs differ from the printed ones; :func:`published_items` — the
  reproduced values keyed by the items of ``data/published/fff21.csv``.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from irscales._atomic import write_atomic
from irscales.correlation import kendall_tau, system_means, topic_by_topic_tau
from irscales.data import Collection, load_preset
from irscales.papers.fff21.ranked import (
    PAPER_ORDER, RECALL_BASE_FREE, RankedScores, float_sp_phi, ranked_scores, track_name)
from irscales.papers import published
from irscales.papers.fff21.significance_tables import grand_mean_delta, table56
from irscales.paths import figures_dir, trec_tracks
from irscales.stats import _significance as SG
from irscales.options import DEFAULT_TIES, UNQ

__all__ = [
    "TABLE4_PAIRS", "AP_FLOAT_ORDERS", "table2", "table3", "topic_by_topic_check", "table4", "save_table",
    "save_rows", "float_ap", "float_ap_taus", "ap_scale_taus", "difference_notes", "published_items",
    "run_lengths", "load_tracks", "describe_track", "Reproduction", "reproduce_tables", "compare_published",
]


# The row order of FFF21 Table 4: the recall-base-free pairs, then each recall-base measure against
# the measures before it (its order of partners is the paper's).
_FREE_PAIRS = [("P", "RBP_p05"), ("P", "RR"), ("P", "RBP_p03"), ("P", "RBP_p08"), ("P", "DCG_b02"),
               ("P", "DCG_b10"), ("RBP_p05", "RBP_p03"), ("RBP_p05", "RBP_p08"), ("RBP_p05", "RR"),
               ("RBP_p05", "DCG_b02"), ("RBP_p05", "DCG_b10"), ("RBP_p03", "RBP_p08"), ("RBP_p03", "RR"),
               ("RBP_p03", "DCG_b02"), ("RBP_p03", "DCG_b10"), ("RBP_p08", "RR"), ("RBP_p08", "DCG_b02"),
               ("RBP_p08", "DCG_b10"), ("RR", "DCG_b02"), ("RR", "DCG_b10"), ("DCG_b02", "DCG_b10")]
_PARTNERS = ("P", "RBP_p05", "RBP_p03", "RBP_p08", "RR", "DCG_b02", "DCG_b10")
_RB_PAIRS = ([("R", b) for b in _PARTNERS + ("AP", "nDCG_b02", "nDCG_b10")]
             + [("AP", b) for b in _PARTNERS + ("nDCG_b02", "nDCG_b10")]
             + [("nDCG_b02", b) for b in _PARTNERS + ("nDCG_b10",)]
             + [("nDCG_b10", b) for b in _PARTNERS])
#: The 55 pairs of FFF21 Table 4, in its row order.
TABLE4_PAIRS: tuple[tuple[str, str], ...] = tuple(_FREE_PAIRS + _RB_PAIRS)



def table2(results: Iterable[RankedScores], ties: str = DEFAULT_TIES, decimals: int | None = None) -> pd.DataFrame:
    """FFF21 Table 2 (ties ``unq``) / Table 3 (``mid``): overall τ between M and M_R.

    One row per :class:`RankedScores` (label ``T08_05``), one column per measure in the paper's order.
    τ = Kendall's τ_b between the system means of M and of M_R (§3.3, §7.1); ``decimals=8`` rounds
    the means first, as FFF21's footnote 9 does.
    """
    rows = {}
    for rs in results:
        if ties not in rs.ranked:
            raise ValueError(f"{rs.row}: ranked scores with ties={ties!r} were not computed")
        rows[rs.row] = {m: float(kendall_tau(rs.original_means(m, decimals),
                                             system_means(rs.ranked[ties][m], decimals)))
                        for m in rs.measures}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "Track"
    return out[[m for m in PAPER_ORDER if m in out.columns] + [m for m in out.columns if m not in PAPER_ORDER]]


def table3(results: Iterable[RankedScores], decimals: int | None = None) -> pd.DataFrame:
    """FFF21 Table 3: :func:`table2` with mid-rank ties (§7.1.3)."""
    return table2(results, ties="mid", decimals=decimals)


def topic_by_topic_check(results: Iterable[RankedScores]) -> pd.DataFrame:
    """§7.1 sanity check: τ between M and M_R on each topic (expected 1.0: φ keeps the order of runs).

    One row per (track, measure, ties): topics where τ is defined (NaN when a measure ties all systems
    on a topic), the smallest and largest τ, and ``all_one``.
    """
    rows = []
    for rs in results:
        for t, ranked in rs.ranked.items():
            for m in rs.measures:
                tau = topic_by_topic_tau(rs.original[m], ranked[m])
                ok = ~np.isnan(tau)
                rows.append({"track": rs.row, "measure": m, "ties": t, "topics": len(tau),
                             "defined": int(ok.sum()), "min": float(tau[ok].min()) if ok.any() else np.nan,
                             "max": float(tau[ok].max()) if ok.any() else np.nan,
                             "all_one": bool(np.all(tau[ok] == 1.0))})
    return pd.DataFrame(rows)


# -------------------------------------------------------------------------------------- Table 4


def table4(rs: RankedScores, pairs: Sequence[tuple[str, str]] | None = None, ties: str = DEFAULT_TIES,
           decimals: int | None = None) -> pd.DataFrame:
    """FFF21 Table 4 on one (track, N): for each pair (A, B), Msr = τ(mean A, mean B), RnkMsr = the
    same on the ranked versions, Δ% = (RnkMsr − Msr)/Msr · 100 (§7.2).

    ``pairs`` defaults to the paper's 55 rows (:data:`TABLE4_PAIRS`) restricted to computed measures.
    """
    have = set(rs.measures)
    pairs = [p for p in (TABLE4_PAIRS if pairs is None else pairs) if p[0] in have and p[1] in have]
    means = {m: rs.original_means(m, decimals) for m in have}
    rmeans = {m: system_means(rs.ranked[ties][m], decimals) for m in have}
    rows = []
    for a, b in pairs:
        tau = float(kendall_tau(means[a], means[b]))
        rtau = float(kendall_tau(rmeans[a], rmeans[b]))
        rows.append({"Measure": f"{a} vs {b}", "Msr": tau, "RnkMsr": rtau,
                     "Delta%": (rtau - tau) / tau * 100 if tau else np.nan})
    return pd.DataFrame(rows).set_index("Measure")


# ------------------------------------------------------------------------------------ output


def save_table(frame: pd.DataFrame, table: str, track: str, simulated: bool, N: int | None = None,
               directory: Path | None = None) -> Path:
    """Write a table as CSV under ``figures/fff21/``: ``table2_T08.csv`` for TREC data,
    ``simulated_table2_sim-t08.csv`` for a simulated track (``_N30`` appended when ``N`` is given).
    Floats are written with 6 decimals so that files are stable across platforms."""
    name = f"{table}_{track.lower()}" + (f"_N{N}" if N is not None else "")
    if simulated:
        name = "simulated_" + name
    d = Path(directory) if directory else figures_dir("fff21")
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{name}.csv"
    write_atomic(path, frame.to_csv(float_format="%.6f"))
    return path



#: Orders of the double-precision sums tried for FFF21's AP scale (:func:`float_ap_taus`).
AP_FLOAT_ORDERS = ("sum_i(k_i/i) / RB", "sum_i(k_i/i / RB)", "sum_i(k_i / (i*RB))", "float32 sum_i(k_i/i) / RB")


def float_ap(rel: np.ndarray, rb: int, order: str) -> np.ndarray:
    """AP of binary runs ``rel`` (n, N) in floating point, summed rank by rank in ``order``."""
    k = np.cumsum(rel, axis=1).astype(float)
    i = np.arange(1, rel.shape[1] + 1, dtype=float)
    dtype = np.float32 if order.startswith("float32") else np.float64
    acc = np.zeros(len(rel), dtype=dtype)
    for c in range(rel.shape[1]):
        term = {"sum_i(k_i/i / RB)": k[:, c] / i[c] / rb, "sum_i(k_i / (i*RB))": k[:, c] / (i[c] * rb)}.get(
            order, k[:, c] / i[c])
        acc = acc + np.where(rel[:, c] > 0, term, 0.0).astype(dtype)
    acc = acc.astype(float)
    return acc if order in ("sum_i(k_i/i / RB)", "sum_i(k_i / (i*RB))") else acc / rb


def float_ap_taus(collection: Collection, N: int, orders: Sequence[str] = AP_FLOAT_ORDERS) -> pd.DataFrame:
    """τ between (exact) AP and ranked AP (Tables 2–3) for several float scales: the per-topic scale
    of AP of all 2^N runs in double precision, ``unique`` over the floats (equal exact values split
    by an ulp), φ = number of distinct floats ≤ the run's float, one row per summation order of
    :data:`AP_FLOAT_ORDERS`; then the one float scale of SP (``ap="fff21-float"``), and first the
    exact scale (``unq`` and ``mid`` columns). N ≤ 20. The experiment of issue 15."""
    if N > 20:
        raise ValueError(f"float_ap_taus enumerates 2^N runs per topic; N = {N} is too large (N ≤ 20)")
    rs = ranked_scores(collection, N, measures=["AP"], track="x", ap="exact", progress=False)
    rel = collection.binary(N)
    ids = np.arange(2**N, dtype=np.int64)
    runs = ((ids[:, None] >> (N - 1 - np.arange(N))) & 1).astype(np.int8)
    means = rs.original_means("AP")
    rows = [{"scale": "exact (SP, integer keys)", UNQ: float(kendall_tau(means, system_means(rs.ranked[UNQ]["AP"]))),
             "mid": float(kendall_tau(means, system_means(rs.ranked["mid"]["AP"])))}]
    for order in orders:
        unq = np.zeros((len(rs.topics), len(rs.systems)))
        mid = np.zeros_like(unq)
        for t, rb in enumerate(collection.rb):
            all_ap = np.sort(float_ap(runs, int(rb), order))
            ap = float_ap(rel[:, t, :], int(rb), order)
            unq[t] = np.searchsorted(np.unique(all_ap), ap, side="right")
            mid[t] = (np.searchsorted(all_ap, ap, "left") + 1 + np.searchsorted(all_ap, ap, "right")) / 2
        rows.append({"scale": f"double, {order}", UNQ: float(kendall_tau(means, system_means(unq))),
                     "mid": float(kendall_tau(means, system_means(mid)))})
    unq, mid = float_sp_phi(rel)  # the convention that reproduces the paper: one float scale of SP
    rows.append({"scale": "double, scale of SP: sum_i(k_i/i), no ÷ RB (ap='fff21-float')",
                 UNQ: float(kendall_tau(means, system_means(unq))),
                 "mid": float(kendall_tau(means, system_means(mid)))})
    return pd.DataFrame(rows).set_index("scale")


_AP_NOTE = ("AP: FFF21 computed AP and its scale in double precision; ranked_scores(ap='fff21-float') "
            "reproduces it, the exact scale of SP (FFF21 eq. 2) gives this value (01b, 'Ranked AP and "
            "floating point'; issue 15)")
_TUKEY_NOTE = ("Tukey critical value: exact studentized range here; FFF21's MATLAB multcompare treats "
               "df > 120 as infinite (critical='matlab' reproduces it)")


def difference_notes(items: Iterable[str], critical: str = "exact", ap: str = "exact") -> dict[str, str]:
    """Known reasons why FFF21 items computed on real T08 runs differ from the printed value (issue 15),
    for the items of ``items`` in a known group: unless ``ap="fff21-float"``, AP (Tables 2–4, 6);
    unless ``critical="matlab"``, the one- and two-way ANOVA rows of Tables 5–6."""
    notes = {}
    for item in items:
        parts = item.split("/")
        if ap == "exact" and parts[0] in ("table2", "table3", "table6") and len(parts) > 2 and parts[2] == "AP":
            notes[item] = _AP_NOTE
        elif ap == "exact" and parts[0] == "table4" and "AP" in parts[2].split(" vs ") and parts[-1] != "Msr":
            notes[item] = _AP_NOTE
        elif parts[0] in ("table5", "table6") and critical == "exact" and parts[3] in (
                SG.TEST_LABELS["anova1"], SG.TEST_LABELS["anova2"]):
            notes[item] = _TUKEY_NOTE
    return notes


def published_items(t2: pd.DataFrame | None = None, t3: pd.DataFrame | None = None,
                    t4: Mapping[str, pd.DataFrame] | None = None,
                    t56: Iterable[pd.DataFrame] = (),
                    grand: tuple[float, float] | None = None, simulated: bool = False) -> dict[str, object]:
    """Reproduced values keyed by the items of ``data/published/fff21.csv`` (Tables 2–6 rows).

    Rows of real TREC tracks named like the paper's (``T08_30``) map to published items; values the
    paper does not print (Table 4 at N = 10, a track it did not use) are left out. ``t4`` maps a row
    label (``T08_30``) to its :func:`table4` frame. Ratios are given in percent, as printed.
    ``simulated=True`` maps the rows of simulated tracks instead (``sim-T26_30`` → the ``T26_30``
    items), for a comparison file whose route is ``"simulated"`` — never a reproduction.
    """
    known = set(published.load("fff21")["item"])
    out: dict[str, object] = {}
    real = (lambda row: str(row).startswith("sim-") == simulated)
    for key, tab in (("table2", t2), ("table3", t3)):
        if tab is None:
            continue
        for row, vals in tab.iterrows():
            if real(row):
                for m, v in vals.items():
                    out[f"{key}/{row}/{m}"] = float(v)
    for row, tab in (t4 or {}).items():
        if real(row):
            for pair, vals in tab.iterrows():
                out[f"table4/{row}/{pair}/Msr"] = float(vals["Msr"])
                out[f"table4/{row}/{pair}/RnkMsr"] = float(vals["RnkMsr"])
                out[f"table4/{row}/{pair}/Delta%"] = f"{vals['Delta%']:+.2f}%"
    for f in t56:
        for r in f.itertuples(index=False):
            if not real(r.track):
                continue
            tab = "table5" if r.measure in RECALL_BASE_FREE else "table6"
            base = f"{tab}/{r.track}/{r.measure}/{r.label}"
            out[f"{base}/Sig"] = r.sig
            out[f"{base}/S2NS"] = r.s2ns
            out[f"{base}/NS2S"] = r.ns2s
            for col, v in (("S2NS%", r.s2ns_ratio), ("NS2S%", r.ns2s_ratio), ("Delta%", r.delta)):
                out[f"{base}/{col}"] = f"{v * 100:.2f}%" if v == v else "nan"
    if grand is not None:
        out["s7.3/grand_mean_delta/mean"] = f"{grand[0] * 100:.0f}%"
        out["s7.3/grand_mean_delta/sd"] = f"{grand[1] * 100:.0f}%"
    unsim = (lambda k: k.replace("/sim-", "/", 1)) if simulated else (lambda k: k)
    return {unsim(k): v for k, v in out.items() if unsim(k) in known}


# ------------------------------------------------------------------------- the notebook's reproduction


def run_lengths(full: bool, lengths: Sequence[int] | None = None, sig_N: int | None = None,
                max_systems: int | None = None) -> tuple[list[int], int, int | None]:
    """The notebook's defaults: run lengths of Tables 2–3 ([5, 10] quick, [5, 10, 20, 30] full), N of
    Tables 4–6 (10 quick, 30 full) and the systems kept (the first 30 when quick, all when full)."""
    Ns = list(lengths) if lengths else ([5, 10, 20, 30] if full else [5, 10])
    N456 = int(sig_N) if sig_N else (30 if full else 10)
    return Ns, N456, (30 if max_systems is None and not full else max_systems)


def load_tracks(collections: Sequence[str], trec: Mapping[str, Mapping[str, str]] | None, full: bool, depth: int,
                max_systems: int | None = None, seed: int = 0) -> dict[str, Collection]:
    """The tracks of the reproduction by name: real TREC tracks (``trec``: track → {"runs", "qrels"};
    None: those found under ``IRSCALES_TREC`` when ``full``), cut at ``depth`` and without topics
    lacking relevant documents (FFF21 §5.2.2), then the simulated ``collections`` (depth 30: quick and
    full see the same runs) whose track is not real; the first ``max_systems`` systems of each."""
    tracks = {}
    if trec is None:  # the IRSCALES_TREC setting: real tracks replace their simulated presets (full runs only)
        found = trec_tracks(tuple(n.lower().removeprefix("sim-").upper() for n in collections)) if full else {}
        trec = {k: {"runs": t.runs, "qrels": t.qrels} for k, t in found.items()}
    for name, spec in trec.items():
        c = Collection.from_trec(spec["runs"], spec["qrels"], depth=depth)
        if (c.rb == 0).any():  # no relevant document: R, AP, nDCG have no scale there (FFF21 §5.2.2)
            print(f"{name}: dropping {(c.rb == 0).sum()} topics without relevant documents")
            c = c.subset(topics=c.rb > 0)
        tracks[name] = c
    for name in collections:
        c = load_preset(name, depth=30, seed=seed)
        if track_name(c).removeprefix("sim-") not in tracks:
            tracks[track_name(c)] = c
    if max_systems:
        tracks = {k: c.subset(systems=list(range(min(max_systems, len(c.systems))))) for k, c in tracks.items()}
    return tracks


def describe_track(name: str, c: Collection) -> str:
    """One line: systems, topics, system pairs, recall base range and whether the runs are real."""
    S, T, _ = c.shape
    return (f"{name}: {S} systems x {T} topics, {S * (S - 1) // 2} system pairs, recall base {c.rb.min()}..{c.rb.max()}"
            f" ({'SIMULATED' if c.is_simulated else 'real TREC runs'})")


@dataclass
class Reproduction:
    """FFF21 Tables 2–6 on some tracks: ranked scores per (track, N), Tables 2–3 over ``Ns``, and
    Tables 4 (by row label) and 5–6 (by track) at ``N456``."""

    results: dict[tuple[str, int], RankedScores]
    Ns: list[int]
    N456: int
    t2: pd.DataFrame
    t3: pd.DataFrame
    t4: dict[str, pd.DataFrame]
    t56: dict[str, pd.DataFrame]


def reproduce_tables(tracks: Mapping[str, Collection], Ns: Sequence[int], N456: int, *, ap: str = "exact",
                     decimals: int | None = None, critical: str = "exact") -> Reproduction:
    """FFF21 Tables 2–6 (§7) on ``tracks``: τ(M, M_R) at run lengths ``Ns`` (``unq``, ``mid``), and at
    ``N456`` τ of all pairs and the significance changes. ``ap``/``decimals``/``critical``: FFF21's
    conventions ("fff21-float", 8, "matlab") or the exact ones (module :mod:`irscales.papers.fff21.ranked`)."""
    # reproducing the tables is consent to the scale builds they need (AP at N = 30: the SP scale, minutes)
    results = {(k, N): ranked_scores(c, N, track=k, ap=ap, progress=False, build=True) for k, c in tracks.items()
               for N in sorted(set(Ns) | {N456})}
    rows = [results[k, N] for k in tracks for N in Ns]
    t4 = {results[k, N456].row: table4(results[k, N456], decimals=decimals) for k in tracks}
    return Reproduction(results, list(Ns), N456, table2(rows, decimals=decimals), table3(rows, decimals=decimals),
                        t4, {k: table56(results[k, N456], critical=critical) for k in tracks})


def save_rows(table: pd.DataFrame, name: str, tracks: Mapping[str, Collection], Ns: Sequence[int]) -> list[Path]:
    """Save a Table 2/3 frame as one CSV per track (rows = its run lengths), :func:`save_table`."""
    return [save_table(table.loc[[f"{k}_{N:02d}" for N in Ns]], name, k, simulated=c.is_simulated)
            for k, c in tracks.items()]


def ap_scale_taus(c: Collection, track: str, Ns: Sequence[int], results: Mapping[tuple[str, int], RankedScores],
                  ap: str, decimals: int | None) -> pd.DataFrame:
    """τ(AP, AP_R) of Tables 2 (unq) and 3 (mid) on one track, exact scale against FFF21's float scale
    of SP (issue 15): one row per run length, columns (convention, ties)."""
    rows = {}
    for N in Ns:
        ex = ranked_scores(c, N, measures=["AP"], track=track, ap="exact", progress=False, build=True)
        fl = results[track, N] if ap == "fff21-float" else ranked_scores(c, N, measures=["AP"], track=track,
                                                                         ap="fff21-float")
        rows[f"{track}_{N:02d}"] = {(name, tie): table2([r], ties=tie, decimals=decimals).iloc[0]["AP"]
                                    for name, r in (("exact", ex), ("fff21-float", fl)) for tie in (UNQ, "mid")}
    return pd.DataFrame(rows).T


def compare_published(rep: Reproduction, tracks: Mapping[str, Collection], critical: str, ap: str,
                      out: Path) -> Iterator[str | pd.DataFrame]:
    """Compare the reproduced items with ``data/published/fff21.csv`` track by track (route "real" or
    "simulated"), writing ``published_vs_reproduced_*.csv`` (and ``match_by_table_*.csv`` for real
    tracks) to ``out``; then §7.3's grand mean when all three tracks are there at N = 30. Yields the
    lines to print and the frames to display, in order."""
    for k, c in tracks.items():
        rows = [rep.results[k, N].row for N in rep.Ns]
        rs = rep.results[k, rep.N456]
        items = published_items(rep.t2.loc[rows], rep.t3.loc[rows], {rs.row: rep.t4[rs.row]}, [rep.t56[k]],
                                simulated=c.is_simulated)
        if not items:
            yield f"{k}: no published item at these run lengths"
            continue
        route = "simulated" if c.is_simulated else "real"
        f = published.compare("fff21", items, route=route).frame
        notes = difference_notes(f.item[f.item.isin(items) & ~f.match], critical, ap) if not c.is_simulated else {}
        f = published.compare("fff21", items, route=route, notes=notes).frame
        f = f[f.item.isin(items)]
        p = out / f"published_vs_reproduced_{'simulated_' if c.is_simulated else ''}{k.removeprefix('sim-')}.csv"
        write_atomic(p, published.comparison_text(f))
        if c.is_simulated:
            yield (f"{k} (SIMULATED): {len(f)} simulated values beside the paper's in {p.name} (route simulated, "
                   "not a reproduction)")
            continue
        yield f"{k} (real): {int(f.match.sum())} of {len(f)} values agree with the paper at its printed precision; wrote {p.name}"
        by_table = f.assign(table=f.item.str.split("/").str[0]).groupby("table").match.agg(["sum", "size"])
        by_table = by_table.rename(columns={"sum": "match", "size": "items"})
        # not a comparison file: the report reads those
        write_atomic(out / f"match_by_table_{k}.csv", by_table.to_csv())
        yield by_table
        yield f.loc[~f.match, ["item", "published", "reproduced", "note"]]
    simulated = any(c.is_simulated for c in tracks.values())
    if {k.removeprefix("sim-") for k in tracks} >= {"T08", "T26", "T27"} and rep.N456 == 30:  # the paper's spans all three
        grand = published_items(grand=grand_mean_delta(rep.t56.values()))
        f = published.compare("fff21", grand, route="simulated" if simulated else "real").frame
        f = f[f.item.isin(grand)]
        write_atomic(out / f"published_vs_reproduced_{'simulated_' if simulated else ''}s7.3.csv",
                     published.comparison_text(f))
        yield (f"§7.3 grand mean Δ% ({'some tracks SIMULATED' if simulated else 'all tracks real'}): "
               + ", ".join(f"{r.item.split('/')[-1]} {r.reproduced} (paper {r.published})" for r in f.itertuples()))
    else:
        yield "§7.3 grand mean not compared: the paper's spans T08, T26 and T27 at N = 30"

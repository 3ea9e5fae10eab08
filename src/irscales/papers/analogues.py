"""The report's real-data analogues (issue 29): an analysis the paper ran on data nobody can share,
run here on real data that is *not the paper's*, shown beside the same analysis on simulated data,
and never counted as a reproduction.

Two exist, each written by a notebook into committed CSVs and labelled by its paper module's
``ANALOGUE_LABEL`` (the label every file name, title and caption of that notebook carries):

* Fer17 RQ1–RQ3 (notebook 03b, :mod:`irscales.papers.fer17.analogue`): the paper answers RQ1 and RQ2
  on its GOV2 grid (T13–T15) and RQ3 on seven tracks; the authors published the grids of T07–T10 only;
* MM23 Part B (notebook 05b, :mod:`irscales.papers.mm23.real_r04`): the paper runs IPSO on the 110
  Robust 2004 runs over 249 topics; 10 of the runs are public, and the judgments of all 249 topics.

:func:`sections` turns those CSVs into :class:`Analogue` sections — tables of display strings,
findings computed from the CSVs, each figure beside its simulated counterpart — which the text form
(:mod:`irscales.papers.report`) and the page (:mod:`irscales.papers.report_html`) only lay out.
Nothing here reads or writes a comparison file (``published_vs_reproduced*.csv``), the only input of
an item's status: an analogue cannot change what the report counts as reproduced.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pandas as pd

from irscales.papers.fer17.measures import TABLE1_NAMES
from irscales.papers.fer17.real_gop import ANALOGUE_LABEL as FER17_LABEL
from irscales.papers.items import unit_title
from irscales.papers.mm23.conventions import GROUPS, TEST_NAMES, metric_labels
from irscales.papers.mm23.part_b import analogue_in_note
from irscales.papers.mm23.real_r04 import ANALOGUE_LABEL as MM23_LABEL, FIG6_ITEMS
from irscales.tables import in_order, top_rows

__all__ = ["LABELS", "NEVER_COUNTED", "AnalogueTable", "Analogue", "counterpart", "fer17_rq1_rq3", "mm23_part_b",
           "ANALOGUES", "sections"]

#: Each paper's analogue label (one per paper: the paper module's ``ANALOGUE_LABEL``).
LABELS = {"fer17": FER17_LABEL, "mm23": MM23_LABEL}
#: What every analogue section says after its label.
NEVER_COUNTED = "never counted as a reproduction: no item's status in this report comes from it"

_FER17_FILE = "analogue_real_gop_T07-T10_{}.csv"
_FER17_FIGURES = "*_real_gop_analogue.png"
_MM23_TAG = "real_r04_249_analogue"
_MM23_SIMULATED = "simulated_r04"  # notebook 05's tag on its simulated Robust 2004 stand-in
_RESPONSES = {"tau": "τ", "tau_ap": "τ_AP"}


@dataclass(frozen=True)
class AnalogueTable:
    """One table of an analogue section: display strings (every column a string, no index), the
    files it was read from (relative to the figures folder) and whether the page collapses it."""

    title: str
    frame: pd.DataFrame
    sources: tuple[str, ...]
    collapsed: bool = False


@dataclass(frozen=True)
class Analogue:
    """A real-data analogue section: the analysis it repeats (``title``: "MM23 Part B"), its label,
    the notebook that writes its files, what was run on what (``what``), findings computed
    from its files, tables, figures as (analogue PNG, simulated PNG or ``None``), and the published
    items it computes an analogue value for (their statuses stay what the comparison files say)."""

    paper: str
    title: str
    label: str
    notebook: str
    what: str
    findings: tuple[str, ...]
    tables: tuple[AnalogueTable, ...]
    figures: tuple[tuple[Path, Path | None], ...]
    items: frozenset[str]

    @property
    def heading(self) -> str:
        """The section's heading: "MM23 Part B: real-data analogue"."""
        return f"{self.title}: real-data analogue"


def counterpart(png: Path) -> Path | None:
    """The simulated figure of the same analysis as an analogue figure: the same name with the part
    from ``_real`` on replaced by ``simulated`` (``fig4_main_effects_tau_real_gop_analogue`` →
    ``fig4_main_effects_tau_simulated``, MM23 ``fig7_agreement_real_r04_249_analogue`` →
    ``fig7_agreement_simulated_r04``); ``None`` when there is none."""
    stem = png.stem
    if "_real" not in stem:
        return None
    prefix = stem[:stem.index("_real")] + "_simulated"
    found = sorted(f for f in png.parent.glob(f"{prefix}*.png") if f.stem == prefix or f.stem.startswith(prefix + "_"))
    return found[0] if found else None


def _figures(folder: Path, pattern: str) -> tuple[tuple[Path, Path | None], ...]:
    pngs = sorted(folder.glob(pattern),
                  key=lambda f: [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", f.stem)])
    return tuple((f, counterpart(f)) for f in pngs)


def _num(v, fmt: str = ".4f") -> str:
    """A number for display; NaN (a measure a column does not have) is "—"."""
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, fmt)


def _rel(path: Path, figures: Path) -> str:
    return path.relative_to(figures).as_posix()


#: The designs of the Fer17 analogue files in their column order, and MM23's tests in notebook 05b's order.
_DESIGNS = ["paper", "simulated", "real, 7 measures", "real, 8 measures"]
_MM23_TESTS = list(TEST_NAMES.values())  # sign, wilcoxon, t: notebook 05b's order


def _in_paper_order(frame: pd.DataFrame, table: pd.DataFrame | None) -> pd.DataFrame:
    """Rows of an item-keyed file in the order of the paper's published items (then by item), whatever order
    the notebook wrote them in."""
    items = [] if table is None or table.empty else list(table["item"])
    return in_order(frame, labels=["item"], orders={"item": items})


def _effects(table: pd.DataFrame | None) -> list[str]:
    """The ANOVA effects (``table2/Topic Size/significant`` → ``Topic Size``) in the paper's item order."""
    items = [] if table is None or table.empty else list(table["item"])
    return list(dict.fromkeys(i.split("/")[1] for i in items if i.startswith("table") and i.count("/") >= 2))


def _pair_key(pair: str) -> tuple:
    """``"AP vs ERR"`` by the positions of its measures in Fer17's order (Table 1's), then as text."""
    pos = {n: i for i, n in enumerate(TABLE1_NAMES)}
    return tuple((pos.get(m, len(pos)), m) for m in str(pair).split(" vs "))


def _statuses(table: pd.DataFrame | None, items) -> list[str]:
    """The report's status of each item (from the comparison files, untouched by the analogue)."""
    if table is None or table.empty:
        return [""] * len(items)
    return list(table.set_index("item")["status"].reindex(list(items)).fillna(""))


def fer17_rq1_rq3(figures: Path, table: pd.DataFrame | None = None) -> Analogue | None:
    """Fer17 RQ1–RQ3 on the authors' grids of T07–T10 beside the simulated grid (notebook 03b's
    ``analogue_real_gop_T07-T10_*.csv``); ``None`` when none of those files exists. ``table``: the
    report's Fer17 table, for the status column of the qualitative findings."""
    figures = Path(figures)
    folder = figures / "fer17"
    files = {k: folder / _FER17_FILE.format(k) for k in ("qualitative", "anova", "table4", "table9", "tables5-6")}
    if not any(f.exists() for f in files.values()):
        return None
    tables, findings, items = [], [], set()
    if files["qualitative"].exists():
        q = _in_paper_order(pd.read_csv(files["qualitative"], dtype=str, keep_default_na=False), table) \
            .set_index("item")
        designs = [c for c in q.columns if c != "paper" and not c.endswith(" = paper")]
        shown = pd.DataFrame({"item": q.index, "paper": q["paper"]})
        held = {}
        for d in designs:
            same = q[f"{d} = paper"] == "True"
            shown[d] = [f"{v} {'✓' if s else '✗'}" for v, s in zip(q[d], same)]
            held[d] = int(same.sum())
        findings.append(f"Of the paper's {len(q)} qualitative findings (which effects are significant, their ω² size "
                        "class, the orderings the text states), " + ", ".join(f"{d} {n}" for d, n in held.items())
                        + " hold.")
        shown["status in this report"] = _statuses(table, q.index)
        items |= set(q.index)
        tables.append(AnalogueTable("The paper's qualitative findings: printed, then each design (✓ as printed, "
                                    "✗ not)", shown.reset_index(drop=True), (_rel(files["qualitative"], figures),)))
    if files["anova"].exists():
        a = in_order(pd.read_csv(files["anova"], keep_default_na=False), labels=["table", "source", "data"],
                     orders={"source": _effects(table), "data": _DESIGNS})
        cells: dict[tuple[str, str], dict[str, str]] = {}
        for r in a.to_dict("records"):
            cells.setdefault((r["table"], r["source"]), {})[r["data"]] = \
                f"{float(r['omega2']):.4g} {r['class']}, p {float(r['p']):.2g}"
        data = list(dict.fromkeys(a["data"]))
        shown = pd.DataFrame([{"table": unit_title(t), "effect": s, **{d: c.get(d, "") for d in data}}
                              for (t, s), c in cells.items()])
        tables.append(AnalogueTable("Tables 2, 3, 7 and 8 (ANOVA): ω², its size class and p — the paper (GOV2 grid, "
                                    "seven tracks) beside each design", shown, (_rel(files["anova"], figures),),
                                    collapsed=True))
    for key, what in (("table4", "Table 4 (RQ1)"), ("table9", "Table 9 (RQ3)")):
        if not files[key].exists():
            continue
        t = pd.read_csv(files[key], header=[0, 1], index_col=0)
        t = t.iloc[sorted(range(len(t)), key=lambda i: _pair_key(t.index[i]))]
        full = t.dropna()  # the measure pairs every column has (no Twist on simulated runs)
        data = list(dict.fromkeys(d for d, _ in t.columns))
        findings.append(f"{what}, mean τ / τ_AP over the {len(full)} measure pairs every column has: "
                        + "; ".join(f"{d} {full[(d, 'tau')].mean():.3f} / {full[(d, 'tau_ap')].mean():.3f}"
                                    for d in data) + ".")
        shown = pd.DataFrame({"measure pair": t.index})
        for d, r in t.columns:
            shown[f"{d} {_RESPONSES[r]}"] = [_num(v) for v in t[(d, r)]]
        tables.append(AnalogueTable(f"{what}: the measure-pair main effects, τ and τ_AP", shown,
                                    (_rel(files[key], figures),), collapsed=True))
    if files["tables5-6"].exists():
        t = pd.read_csv(files["tables5-6"])
        t = in_order(t, labels=list(t.columns[:2]), orders={t.columns[0]: _DESIGNS}).set_index(list(t.columns[:2]))
        shown = pd.DataFrame({"data": [i[0] for i in t.index],
                              "response": [_RESPONSES.get(i[1], i[1]) for i in t.index],
                              **{c: [_num(v) for v in t[c]] for c in t.columns}})
        tables.append(AnalogueTable("Tables 5–6 (RQ2), the grand means over the (topics, systems) cells: allQ "
                                    "against no1Q (first-quartile systems removed)", shown,
                                    (_rel(files["tables5-6"], figures),)))
    what = ("Fer17 answers RQ1 and RQ2 on its Grid of Points on the GOV2 corpus (T13–T15) and RQ3 on seven tracks; "
            "the GOV2 grids were never published. Notebook 03b runs the same analyses — τ and τ_AP among the "
            "measures, the topic-size × system-size ANOVA with ω², power and Tukey HSD, RQ2's removal of the "
            "first-quartile systems, RQ3's corpus / topic-set design — on the authors' published grids of T07–T10 "
            "(Fer17 §3.2's 1,326 systems: no 3-grams, one query form) and, beside them, on the simulated grid of "
            "notebook 03 for the same tracks. Columns: paper (printed), simulated (seven measures: Twist is 0/0 on "
            "many simulated runs), real, 7 measures (like for like), real, 8 measures (Twist included). Notebook "
            "03b's quick default samples 3 topic sizes × 3 system sizes with H = 10 (the paper: 7 × 10, H = 100), "
            "so effects that are small there may not be significant here; full=True runs the paper's design.")
    return Analogue("fer17", "Fer17 RQ1–RQ3", FER17_LABEL, "03b_fer17_real_gop", what,
                    tuple(findings), tuple(tables), _figures(folder, _FER17_FIGURES), frozenset(items))


def _fig6_finding(pairs: pd.DataFrame, sizes: tuple[int, ...]) -> str:
    """Whether any ordered pair of the runs has MM23 Fig. 6's printed group sizes, and the closest."""
    runs = len(set(pairs["system A"]) | set(pairs["system B"]))
    printed = ", ".join(map(str, sizes))
    match = pairs[pairs["match"].astype(str) == "True"]
    if len(match):
        names = "; ".join(f"{r['system A']} (A) vs {r['system B']} (B)" for _, r in match.iterrows())
        return (f"MM23 Fig. 6: {names} {'has' if len(match) == 1 else 'have'} exactly the printed group sizes "
                f"({printed}) over the 249 topics at k = 10, so the paper's pair may be among the public runs.")
    best = top_rows(pairs, "L1 distance", 1, labels=["system A", "system B"], ascending=True).frame.iloc[0]
    got = ", ".join(str(int(best[g])) for g in GROUPS)
    return (f"MM23 Fig. 6: no pair of the {runs} runs has the printed group sizes ({printed}) over the 249 topics at "
            f"k = 10 — all {len(pairs)} ordered pairs were checked (swapping A and B swaps the ns and ni groups). The "
            f"closest, {best['system A']} (A) vs {best['system B']} (B), has {got} (L1 distance "
            f"{int(best['L1 distance'])}). Figs 5–6 are not reproduced on real data: the paper's pair is not among "
            "the public runs.")


def _agreement(frame: pd.DataFrame) -> pd.Series:
    """MM23 Fig. 7's agreement per bar: the fraction of system pairs in "Both: Yes" or "Both: No"."""
    frame = in_order(frame, labels=["metric", "depth", "test", "category"],
                     orders={"metric": list(metric_labels(10, generic=True).values()), "test": _MM23_TESTS})
    both = frame[frame["category"].isin(["Both: Yes", "Both: No"])]
    return both.groupby(["test", "metric", "depth"], sort=False)["fraction"].sum()


def mm23_part_b(figures: Path, table: pd.DataFrame | None = None) -> Analogue | None:
    """MM23 Part B on the 10 public Robust 2004 runs over 249 topics beside the simulated stand-in
    (notebook 05b's ``*_real_r04_249_analogue.csv``, notebook 05's ``*_simulated_r04.csv``); ``None``
    when none of the analogue files exists. ``table``: the report's MM23 table (the printed Fig. 6
    sizes, the simulated values and the status of each item)."""
    figures = Path(figures)
    folder = figures / "mm23"
    files = {k: folder / f"{k}_{_MM23_TAG}.csv" for k in ("table3", "fig6_pairs", "fig7_agreement", "items")}
    if not any(f.exists() for f in files.values()):
        return None
    sim = {k: folder / f"{k}_{_MM23_SIMULATED}.csv" for k in ("table3", "fig7_agreement")}
    tables, findings, items = [], [], set()
    pub = table.set_index("item") if table is not None and not table.empty else None
    if files["fig6_pairs"].exists() and pub is not None and set(FIG6_ITEMS) <= set(pub.index):
        pairs = pd.read_csv(files["fig6_pairs"])
        sizes = tuple(int(pub.loc[i, "published"]) for i in FIG6_ITEMS)
        findings.append(_fig6_finding(pairs, sizes))
        top = top_rows(pairs, "L1 distance", 5, labels=["system A", "system B"], ascending=True)
        closest = top.frame
        shown = pd.DataFrame([{"system A": "printed (MM23 Fig. 6)", "system B": "",
                               **dict(zip(GROUPS, map(str, sizes))), "L1 distance": ""}]
                             + [{"system A": r["system A"], "system B": r["system B"],
                                 **{g: str(int(r[g])) for g in GROUPS}, "L1 distance": str(int(r["L1 distance"]))}
                                for _, r in closest.iterrows()])
        cut = f"; {top.note()}" if top.more_tied else ""
        tables.append(AnalogueTable(f"Fig. 6: the 5 pairs closest to the printed group sizes (all {len(pairs)} "
                                    f"ordered pairs in the file; ties by system names{cut})", shown,
                                    (_rel(files["fig6_pairs"], figures),)))
    if files["table3"].exists():
        real = in_order(pd.read_csv(files["table3"]), labels=["k"])
        cols = {"equal": "equal %", "separable": "separable %", "non-sep.": "non-sep. %"}
        shown = pd.DataFrame({"k": real["k"].astype(str),
                              **{f"paper {c}": real[f"paper {'nonsep' if c == 'non-sep.' else c}"] for c in cols}})
        used = [files["table3"]]
        if sim["table3"].exists():
            s = pd.read_csv(sim["table3"]).set_index("k").reindex(real["k"])
            shown = shown.assign(**{f"simulated {c}": [_num(v, ".2f") + "%" for v in s[col]]
                                    for c, col in cols.items()})
            used.append(sim["table3"])
        counts = [f"{int(pd.read_csv(f)['SERP pairs'].iloc[0]):,} {name}" for name, f in
                  (("simulated", sim["table3"]), ("real", files["table3"])) if f in used]
        findings.append(f"Table 3 counts SERP pairs over the 249 topics: {' and '.join(counts)} "
                        "(the paper: 1,492,755).")
        shown = shown.assign(**{f"real {c}": [_num(v, ".2f") + "%" for v in real[col]] for c, col in cols.items()})
        tables.append(AnalogueTable("Table 3: equal, separable and non-separable SERP pairs (%) by depth k",
                                    shown, tuple(_rel(f, figures) for f in used)))
    if files["fig7_agreement"].exists():
        real = _agreement(pd.read_csv(files["fig7_agreement"]))
        used, frames = [files["fig7_agreement"]], {"real": real}
        if sim["fig7_agreement"].exists():
            frames = {"simulated": _agreement(pd.read_csv(sim["fig7_agreement"])), "real": real}
            used.insert(0, sim["fig7_agreement"])
        findings.append("Fig. 7 (the paper: 'Both: Yes' and 'Both: No' cover at least three quarters of the system "
                        "pairs in every bar): the smallest agreement is "
                        + ", ".join(f"{k} {v.min():.3f}" for k, v in frames.items()) + ".")
        keys = list(dict.fromkeys(k for f in frames.values() for k in f.index))
        rows = {}
        for test, metric, depth in keys:
            row = rows.setdefault((test, metric), {"test": test, "metric": metric})
            for name, f in frames.items():
                row[f"k={depth} {name}"] = _num(f.get((test, metric, depth), float("nan")), ".3f")
        tables.append(AnalogueTable("Fig. 7: agreement of each metric's test with the IPSO sign test ('Both: Yes' + "
                                    "'Both: No', fraction of the system pairs)", pd.DataFrame(list(rows.values())),
                                    tuple(_rel(f, figures) for f in used), collapsed=True))
    if files["items"].exists():
        it = _in_paper_order(pd.read_csv(files["items"], dtype=str, keep_default_na=False), table)
        # notebook 05 keeps the simulated value of an item needing the paper's runs in its note
        simulated = ([analogue_in_note(pub.loc[i, "note"]) if i in pub.index else "" for i in it["item"]]
                     if pub is not None else [""] * len(it))
        shown = pd.DataFrame({"item": it["item"], "where": it["location"], "paper": it["published"],
                              "simulated": simulated, "real-data analogue": it["real-data analogue"],
                              "status in this report": _statuses(table, it["item"])})
        items |= set(it["item"])
        tables.append(AnalogueTable("Every Part-B item: printed, simulated and the real-data analogue", shown,
                                    (_rel(files["items"], figures),), collapsed=True))
    what = ("MM23 §3 'Separability In Practice' runs IPSO on all 110 runs of the TREC 2004 Robust track over its 249 "
            "topics. Ten of those runs are public, and so are the judgments of all 249 topics: notebook 05b runs every "
            "Part-B analysis (Table 3, Figs 5–8, the IPSO sign test) on the ten runs with MM23's setup (runs cut at "
            "100 documents, relevance grade ≥ 1, unjudged documents not relevant), beside notebook 05's simulated "
            "stand-in (sim-r04).")
    return Analogue("mm23", "MM23 Part B", MM23_LABEL, "05b_mm23_real_r04_249", what,
                    tuple(findings), tuple(tables), _figures(folder, f"*_{_MM23_TAG}.png"), frozenset(items))


#: The analogue section of each paper that has one.
ANALOGUES: dict[str, Callable[[Path, pd.DataFrame | None], Analogue | None]] = {
    "fer17": fer17_rq1_rq3, "mm23": mm23_part_b}


def sections(tables: dict[str, pd.DataFrame], figures: Path) -> dict[str, Analogue]:
    """paper → its :class:`Analogue` section, for the papers of ``tables`` whose analogue files are in
    ``figures`` (``tables``: the report's per-paper tables; they are read, never changed)."""
    out = {}
    for paper, build in ANALOGUES.items():
        if paper in tables:
            a = build(Path(figures), tables[paper])
            if a is not None:
                out[paper] = a
    return out

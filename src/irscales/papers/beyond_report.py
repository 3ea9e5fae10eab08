"""The report's sections *beyond the papers* (issue 30): analyses no paper ran, on real data, labelled
so and never counted as reproductions (no published item exists for them, so none can take a status).

Two exist. **Graded relevance on real runs** (notebook 08, :mod:`irscales.papers.fff21.graded_real`):
FFF21's Tables 2, 4, 5–6 with graded measures and their interval-scaled versions on the CLEF eHealth
2018 and Robust 2004 runs. :func:`graded_real` reads the CSV files the notebook writes to
``figures/beyond/`` (the run with the most run lengths when several exist: ``full=True`` over the
quick default) and turns them into a :class:`Beyond` section — display tables, findings computed from
the files (:func:`irscales.papers.fff21.graded_real.findings`), the figures — which the text form
(:func:`markdown`) and the page (:func:`html`, using :mod:`irscales.papers.report_html`'s table and
figure blocks) lay out at the end of the report.

**Interval scales at the cut-offs** (notebook 09, :mod:`irscales.papers.fff21.cutoffs`, issue 42): FFF21's
Table 2 at N = 100 and 1000 on the TREC-8 runs; :func:`cutoffs` reads ``figures/cutoffs/`` (the run with the
most run lengths, all systems over a subset, real over simulated).
"""

from __future__ import annotations

import html as html_
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from irscales.data._judged import JUDGED_CONVENTION
from irscales.enumeration.ties import TIES
from irscales.papers import report_html
from irscales.papers.analogues import AnalogueTable
from irscales.papers.fff21.cutoffs import FOLDER, findings as cutoff_findings
from irscales.papers.fff21.cutoffs_decisions import MEASURES as DECISION_MEASURES, TESTS as DECISION_TESTS, \
    decision_findings
from irscales.papers.fff21.graded_data import DATASETS, LABEL
from irscales.papers.fff21.graded_real import BeyondGraded, findings
from irscales.papers.fff21.graded_scores import ORDER
from irscales.papers.fff21.graded_tables import TAG
from irscales.papers.fff21.ranked import PAPER_ORDER
from irscales.tables import in_order, top_rows
from irscales.options import UNQ

__all__ = ["NOT_COUNTED", "Beyond", "graded_real", "cutoffs", "sections", "markdown", "html"]

#: What every section beyond the papers says after its label.
NOT_COUNTED = "no paper printed these numbers: never a reproduction, never counted in any status"
_FOLDER = "beyond"
_MARKS = {"proof": "", "enumeration": "", "conditional": " †", "not computed": " (not computed)"}


@dataclass(frozen=True)
class Beyond:
    """A section beyond the papers: ``title`` (its heading), ``label`` (what the data are), the notebook
    writing its files, what was run (``what``), findings computed from the files, display tables and
    the figures (paths under the figures folder)."""

    key: str
    title: str
    label: str
    notebook: str
    what: str
    findings: tuple[str, ...]
    tables: tuple[AnalogueTable, ...]
    figures: tuple[Path, ...]
    folder: str = _FOLDER

    @property
    def anchor(self) -> str:
        return f"beyond-{self.key}"


def _read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, comment="#")


#: Each file's rows in one total order, whatever order the notebook wrote them in: these label columns first
#: (data sets, measures and tie rules in the notebook's order), then every other column.
_FIRST = {"judged": ["dataset", "k"], "exactness": ["dataset", "N", "measure", "ties"],
          "table2": ["dataset", "N", "measure", "ties"], "table4": ["dataset", "N", "Measure"],
          "table56": ["dataset", "N", "table", "measure", "test"]}
_ORDERS = {"dataset": list(DATASETS), "measure": list(ORDER), "ties": TIES}


def _canonical(frame: pd.DataFrame, first: list[str]) -> pd.DataFrame:
    first = [c for c in first if c in frame.columns]
    return in_order(frame, labels=first + [c for c in frame.columns if c not in first], orders=_ORDERS)


def _latest(folder: Path) -> str | None:
    """The ``N…`` tag of the run with the most run lengths among the table2 files (None: no file)."""
    tags = [m.group(1) for f in folder.glob(f"graded_table2_N*_{TAG}.csv")
            if (m := re.match(rf"graded_table2_(N[\d_]+)_{TAG}$", f.stem))]
    return max(tags, key=lambda t: (t.count("_"), t), default=None)


def _tau_table(t2: pd.DataFrame, dataset: str) -> pd.DataFrame:
    f = t2[t2["dataset"] == dataset]
    ties = [t for t in TIES if t in set(f["ties"])]
    cols = [(n, t) for n in sorted(set(f["N"])) for t in ties]
    cell = {(r.measure, r.N, r.ties): r for r in f.itertuples()}
    rows = []
    for m in [x for x in ORDER if x in set(f["measure"])]:
        row = {"measure": m}
        for n, t in cols:
            r = cell.get((m, n, t))
            row[f"N={n} {t}"] = "—" if r is None or pd.isna(r.tau) else f"{r.tau:.4f}{_MARKS.get(r.exact, '')}"
        rows.append(row)
    return pd.DataFrame(rows)


def _changes_table(t56: pd.DataFrame) -> pd.DataFrame:
    f = t56.assign(changed=t56["s2ns"] + t56["ns2s"])
    g = f.groupby(["dataset", "N", "measure"], sort=False).agg(sig=("sig", "sum"), changed=("changed", "sum"))
    out = g["changed"].astype(str) + " of " + g["sig"].astype(str)
    wide = out.unstack("measure")
    wide = wide[[m for m in ORDER if m in wide.columns]].reset_index()
    return wide.astype(str)


def graded_real(figures: Path) -> Beyond | None:
    """The section on graded relevance from notebook 08's files in ``figures/beyond/`` (None: none there)."""
    folder = Path(figures) / _FOLDER
    tag = _latest(folder) if folder.is_dir() else None
    if tag is None:
        return None
    files = {k: folder / f"graded_{k}_{tag}_{TAG}.csv" for k in ("judged", "exactness", "table2", "table4", "table56")}
    frames = {k: _canonical(_read(p), _FIRST[k]) if p.exists() else pd.DataFrame() for k, p in files.items()}
    Ns = tuple(int(n) for n in tag[1:].split("_"))
    r = BeyondGraded(Ns, {}, {}, frames["judged"], frames["exactness"], frames["table2"], frames["table4"],
                     frames["table56"])
    src = {k: f"{_FOLDER}/{p.name}" for k, p in files.items()}
    tables = []
    if not r.judged.empty:
        shown = r.judged.assign(**{c: r.judged[c].map(lambda v: f"{v:.3f}") for c in ("judged@k", "lowest system")})
        tables.append(AnalogueTable(f"judged@N: the fraction of the top N documents that is judged "
                                    f"({JUDGED_CONVENTION})", shown.astype(str), (src["judged"],)))
    for name in [d for d in DATASETS if not r.table2.empty and d in set(r.table2["dataset"])]:
        tables.append(AnalogueTable(f"Tables 2–3, {name}: Kendall τ between each measure and its interval-scaled "
                                    "version, by N and tie strategy († exact under Schanuel's conjecture)",
                                    _tau_table(r.table2, name), (src["table2"],)))
    if not r.table56.empty:
        tables.append(AnalogueTable("Tables 5–6: system pairs whose decision changes from M to its interval version "
                                    "(S2NS + NS2S, summed over FFF21's eight tests) of those significant with M",
                                    _changes_table(r.table56), (src["table56"],)))
    if not r.table4.empty:
        top = top_rows(r.table4.assign(moved=r.table4["Delta%"].abs()), "moved", 12,
                       labels=["dataset", "N", "Measure"])
        cut = f"; {top.note()}" if top.more_tied else ""
        tables.append(AnalogueTable(f"Table 4: the measure pairs whose τ moves most (Msr: measures, RnkMsr: their "
                                    f"interval versions; largest |Delta%| first, then by data set, N, pair{cut})",
                                    top.frame[["dataset", "N", "Measure", "Msr", "RnkMsr", "Delta%", "exact"]]
                                    .round(4).astype(str), (src["table4"],), collapsed=True))
    if not r.exactness.empty:
        e = r.exactness.drop_duplicates(["dataset", "measure", "N", "exact"])
        tables.append(AnalogueTable("How exact each cell is (per data set, measure and N; the tie strategies share "
                                    "a basis)", e[["dataset", "measure", "N", "grades", "route", "exact", "basis"]]
                                    .astype(str), (src["exactness"],), collapsed=True))
    what = ("FFF21 maps its graded judgments to binary and leaves graded relevance to future work (footnote 7). "
            "Notebook 08 runs FFF21's Tables 2, 4 and 5–6 with graded measures over three grades — gP, gRBP "
            "(p = 0.5, 0.8), gnDCG (log base 2 and 10, linear gains) — and their graded interval-scaled versions, "
            "each beside its binary (lenient) counterpart, on 24 real CLEF eHealth 2018 runs (50 topics, depth-10 "
            "pool; runs named by file, repeated lines dropped) and 10 real Robust 2004 runs (249 topics), at N = "
            f"{', '.join(map(str, Ns))}. φ is exact in every cell; the tables say what it rests on.")
    pngs = tuple(sorted(folder.glob(f"graded_*_{tag}_{TAG}.png")))
    return Beyond("graded", "Beyond the papers: graded relevance on real runs", LABEL, "08_beyond_graded_real",
                  what, tuple(findings(r)), tuple(tables), pngs)


def _cutoffs_cell(r) -> str:
    """A Table 2 cell: τ (ties other than unq named), and how exact the interval values are."""
    if r is None:
        return "—"
    if r.route == "none":
        return "no route"
    ties = ("" if r.ties == UNQ else f" ({r.ties})") + (" †" if isinstance(r.caveat, str) and r.caveat else "")
    if bool(r.exact):
        return f"{r.tau:.4f}{ties}, exact"
    bound = f"bracketed, max_rel_error {r.max_rel_error:.2g}"
    if pd.isna(getattr(r, "tau_min", float("nan"))):
        return f"{r.tau:.4f}{ties}, {bound}"
    stable = "τ the same for every φ in the brackets" if str(r.stable) == "True" else \
        (f"τ between {r.tau_min:.4f} and {r.tau_max:.4f} for every φ in the brackets "
         f"({int(r.undecided_pairs)} pairs of systems in either order)")
    return f"{r.tau:.4f}{ties}, {bound} (achieved {r.achieved_rel_error:.2g}), {stable}"


def _cutoffs_table(t2: pd.DataFrame) -> pd.DataFrame:
    """Measures × N: the unq cell, or where unq has no route the other tie strategy's cell beside the refusal."""
    rows = []
    for m in dict.fromkeys(t2["measure"]):
        row = {"measure": m}
        for n in sorted(set(t2["N"])):
            f = t2[(t2["measure"] == m) & (t2["N"] == n)]
            unq = next(f[f["ties"] == UNQ].itertuples(), None)
            other = next((r for r in f[f["ties"] != UNQ].itertuples() if r.route != "none"), None)
            cell = _cutoffs_cell(unq)
            if unq is not None and unq.route == "none":
                cell = f"no unq route; {_cutoffs_cell(other)}" if other is not None else "no route (unq nor mid)"
            row[f"N = {n}"] = cell
        rows.append(row)
    return pd.DataFrame(rows)


_CUTOFF_TAG = re.compile(r"table2_(N([\d_]+?)(?:_(\d+)systems)?_beyond_(real|simulated))$")


def _cutoffs_latest(folder: Path) -> re.Match | None:
    """The table2 file with the most run lengths, then all systems over a subset, then real over simulated
    (:func:`irscales.papers.fff21.cutoffs.tag`)."""
    found = [m for f in folder.glob("table2_N*.csv") if (m := _CUTOFF_TAG.match(f.stem))]
    return max(found, key=lambda m: (m.group(2).count("_"), m.group(3) is None, m.group(4) == "real",
                                     m.group(1)), default=None)


def cutoffs(figures: Path) -> Beyond | None:
    """The section on interval scales at the cut-offs from notebook 09's files in ``figures/cutoffs/``."""
    folder = Path(figures) / FOLDER
    found = _cutoffs_latest(folder) if folder.is_dir() else None
    if found is None:
        return None
    tag, subset, simulated = found.group(1), found.group(3), found.group(4) == "simulated"
    label = ("simulated data" if simulated else "real data") + ", beyond the papers"
    runs = "simulated TREC-8 runs (sim-t08: the shared data was absent)" if simulated else "real TREC-8 runs"
    def ordered(frame: pd.DataFrame) -> pd.DataFrame:  # one order whatever the notebook's: N, measure, ties
        first = [c for c in ("N", "measure", "ties") if c in frame.columns]
        return in_order(frame, labels=first + [c for c in frame.columns if c not in first],
                        orders={"measure": PAPER_ORDER, "ties": TIES})

    t2 = ordered(_read(folder / f"table2_{tag}.csv"))
    judged = folder / f"judged_{tag}.csv"
    judged = in_order(_read(judged), labels=["N"]) if judged.exists() else None
    src = f"{FOLDER}/table2_{tag}.csv"
    tables = [AnalogueTable("Table 2 at the cut-offs: Kendall τ_b between each measure and its interval version "
                            "(ties unq; where unq has no route, FFF21 Table 3's mid), how exact the interval values "
                            "are, and for a bracket the range of τ over every φ inside it (a proven bound) († also rests on the caveat of the CSV's caveat column: for DCG's distinct "
                            "values, no Q-linear relation among the 1/ln m, Schanuel's conjecture)", _cutoffs_table(t2), (src,))]
    dec_path = folder / f"decisions_{tag}.csv"
    # one order whatever the CSV's (issue 43's rule): N, the notebook's measures and tests, the target error
    dec = (in_order(_read(dec_path), labels=["N", "measure", "test", "max_rel_error"],
                    orders={"measure": DECISION_MEASURES, "test": DECISION_TESTS}) if dec_path.exists() else None)
    if dec is not None:
        tables.append(AnalogueTable("Comparison decisions proven over the brackets (issue 51): per measure, run length "
                                    "and test, the pairs undecided (of all pairs; in brackets those significant on the "
                                    "original scale) at each target relative error of φ", _decisions_table(dec),
                                    (f"{FOLDER}/{dec_path.name}",)))
    for name, title in (("topk", "How the ranking of systems changes: top-k systems kept, the largest rank move"),
                        ("points", "Where the runs sit on the interval scale: share at 0, quantiles of log10")):
        p = folder / f"{name}_{tag}.csv"
        if p.exists():
            f = ordered(_read(p))
            f = f.assign(**{c: f[c].map(lambda v: f"{v:.4f}") for c in f.columns if f[c].dtype == float})
            tables.append(AnalogueTable(title, f.fillna("").astype(str), (f"{FOLDER}/{p.name}",), collapsed=True))
    Ns = sorted(set(t2["N"]))
    what = (f"FFF21 stops at N = 30. Notebook 09 runs FFF21's Table 2 at N = {', '.join(map(str, Ns))} on "
            f"{f'the first {subset} ' if subset else 'all '}{runs}: τ_b between the system means of each FFF21 "
            "measure and of its "
            "interval version, both from irscales.evaluate(..., ranked=True), each cell on the planner's route at N "
            "(exact, or a bracket of φ with a proven relative error; for a bracket, the range of τ over every φ "
            "inside it — each system's mean interval value between the means of its lower and upper bounds, a proven "
            "outer bound, irscales.certified.kendall_tau_range — says whether the bracket can move τ). A measure without a route at N keeps its row: AP has "
            "no route with ties unq beyond N = 24.")
    if dec is not None:
        what += (" Last, the comparison table's decisions on the bracketed interval values: each pair's test decision "
                 "is proven when it holds for every φ inside the brackets, else undecided (irscales.stats.proven: sound "
                 "outer bounds of the statistics over the box of φ), for brackets within several target errors.")
    pngs = tuple(sorted(folder.glob(f"*_{tag}.png")))
    found_lines = cutoff_findings(t2, runs, judged) + (decision_findings(dec, runs) if dec is not None else [])
    return Beyond("cutoffs", "Beyond the papers: interval scales at the cut-offs", label, "09_beyond_cutoffs", what,
                  tuple(found_lines), tuple(tables), pngs, FOLDER)


def _decisions_table(dec: pd.DataFrame) -> pd.DataFrame:
    """(N, measure, ties, test) × target error: ``undecided / pairs (k)``, k of them significant on the original
    scale; ``no bracket`` where the measure has none at N."""
    rows = []
    errors = sorted(set(dec["max_rel_error"]))
    for (n, m, t), g in dec.groupby(["N", "measure", "test"], sort=False):
        row = {"N": n, "measure": m, "ties": g["ties"].iloc[0], "test": t}
        for e in errors:
            r = next(g[g["max_rel_error"] == e].itertuples(), None)
            row[f"max_rel_error {e:g}"] = ("—" if r is None else "no bracket" if r.route == "none" else
                                           f"{int(r.undecided)} / {int(r.pairs)} ({int(r.undecided_significant_original)})")
        rows.append(row)
    return pd.DataFrame(rows)


def sections(figures: Path) -> list[Beyond]:
    """Every section beyond the papers whose files are in ``figures``."""
    return [b for b in (graded_real(figures), cutoffs(figures)) if b is not None]


def markdown(b: Beyond, md_table) -> list[str]:
    """The section in REPORT.md (``md_table``: the report's frame-to-Markdown function)."""
    md = [f"## {b.title}", "", f"**{b.label}** — {NOT_COUNTED} (notebook {b.notebook}).", "", b.what, ""]
    md += [f"- {f}" for f in b.findings] + ([""] if b.findings else [])
    for t in b.tables:
        md += [f"**{t.title}** ({', '.join(t.sources)})", ""] + md_table(t.frame) + [""]
    for f in b.figures:
        md += [f"![{f.stem}]({b.folder}/{f.name})", f"*{f.name} — {b.label}*", ""]
    return md


def html(b: Beyond) -> str:
    """The section on the page: its label first, what was run, the findings, the tables (long ones
    collapsed) and the figures."""
    esc = html_.escape
    out = [f"<section class='analogue' id='{b.anchor}'><h2>{esc(b.title)}</h2><p class='label'><b>{esc(b.label)}</b>"
           f" — {esc(NOT_COUNTED)} (notebook {esc(b.notebook)}).</p><p>{esc(b.what)}</p>"]
    out += report_html.findings_tables_html(b.findings, b.tables)
    out += [f"<div class='figs'>{report_html.figure_html(b.folder, f)}</div>" for f in b.figures]
    return "".join(out) + "</section>"

"""The companion report: every published number beside ours, generated from the notebooks' outputs.

``python -m irscales.papers.report [FIGURES_DIR]`` reads

* ``data/published/<paper>.csv``          what the papers print (see :mod:`irscales.papers.published`)
* ``FIGURES_DIR/<paper>/published_vs_reproduced*.csv``  what the notebooks reproduced, each row
  with the ``route`` that produced it (:data:`irscales.papers.published.ROUTES`)
* ``FIGURES_DIR/<paper>/*.png``           the figures

and writes ``FIGURES_DIR/REPORT.md`` (the text form, here) and ``FIGURES_DIR/report.html`` (the page,
:mod:`irscales.papers.report_html`). What both share — the statuses, the items grouped by the table,
figure, example or section of the paper they belong to, the errata sentence — is in
:mod:`irscales.papers.items` (its names are importable from here too); this module chooses each
item's evidence and status and writes the text form. Every published row gets one status (none is
dropped); the status says what was done:

``reproduced exhaustively``         exact computation over all runs / SERP pairs or the formal theory
``reproduced from printed inputs``  recomputed from numbers the paper itself prints
``reproduced on real data``         computed on real runs or their published per-topic scores (TREC files, a
                                    public collection, the Fer17 authors' Grid of Points)
``agrees within printing``          recomputed by one of those routes; it does not round to the printed
                                    value but the printing allows it (truncated where the paper's other
                                    values show it, a marked approximation, a range that holds as stated, a
                                    value read off a figure within its resolution): no erratum
``depends on reading``              recomputed by one of those routes; right if the paper truncated and
                                    nothing shows whether it did, or the paper leaves a convention open, our
                                    reading does not give the printed value and another reading does:
                                    no erratum
``unresolved``                      recomputed by one of those routes; not reproduced, and the paper's
                                    settings are unknown: neither an erratum nor a reading (counted apart)
``differs``                         recomputed by one of those routes, and the printed value is wrong at
                                    its own precision under every reasonable reading, or inconsistent with
                                    the paper's own printed numbers under every setting it leaves open (the
                                    note says why): an erratum
``simulated only``                  needs runs nobody can share (the note names them); at most the
                                    analysis ran on simulated data, which never counts as a reproduction
``not attempted``                   no route has produced it (the note says why)

The status of a direct row is the one its comparison file carries (decided when it was written by
:func:`irscales.papers.published.compare`, from :mod:`irscales.papers.printing`); rows written before those
statuses existed count as reproduced when they match and as differing otherwise. When several
comparison files cover an item the most direct evidence wins: real data, printed inputs or exhaustive
computation over simulated data; among equally direct rows the largest disagreement is kept (never
hidden behind an agreement).

Where a number computed on real runs comes from (:func:`real_sources`): a comparison file of route
``real`` is either the one committed to the repository (computed on TREC runs, or other real data such
as the Fer17 authors' Grid of Points, that a fresh clone does not have: the report says which, and
where to put them to recompute) or recomputed in this checkout (it differs from the committed file, or
is not in git); each such item says which in its ``source``.

Real-data analogues (:mod:`irscales.papers.analogues`: an analysis run on real data that is not the
paper's) get a section of their own beside the simulated run, labelled so; they never feed an item's
status, so they never count as reproductions. Sections beyond the papers
(:mod:`irscales.papers.beyond_report`: analyses no paper ran, e.g. graded relevance on real runs) come
last, labelled "real data, beyond the papers"; no published item exists for them.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from irscales._atomic import write_atomic
from irscales import paths
from irscales.papers import analogues as analogues_
from irscales.papers import beyond_report, published, report_html
from irscales.papers.analogues import NEVER_COUNTED, Analogue
from irscales.papers.items import (DATA_QUIRKS, MEANING, NOT_ERRATA, PAPERS, REAL_DATA, REPRODUCED, STATUSES, TREC_DATA,
                                   UNRESOLVED, errata, errata_paragraph, figure_route, grid_sentences, missing_runs,
                                   not_errata_sentence,
                                   overall_line, relative_difference, short_item, status_counts, summary_line,
                                   unit_key, unit_order, unit_sort, unit_title, unresolved_sentence)
from irscales.paths import published_dir

__all__ = ["RECOMPUTED_PREFIX", "COLUMNS", "row_route", "item_status", "RealSource", "file_state", "real_sources",
           "paper_table", "build", "markdown", "analogue_markdown", "main", "PAPERS", "REPRODUCED", "NOT_ERRATA",
           "STATUSES", "MEANING", "missing_runs", "status_counts", "summary_line", "overall_line", "unit_key",
           "unit_title", "unit_sort", "unit_order", "short_item", "relative_difference", "errata", "errata_paragraph",
           "not_errata_sentence"]

#: Note prefix of comparison rows written before the ``route`` column: recomputed from printed inputs.
RECOMPUTED_PREFIX = published.PRINTED_NOTE
#: Precedence of routes when several files cover an item: the most direct evidence wins.
_DIRECTNESS = {"real": 2, "printed": 2, "exhaustive": 2, "simulated": 1}

COLUMNS = ["item", "location", "context", "kind", "published", "ours", "route", "status", "note", "source"]
#: How far a comparison row's status is from an agreement: among equally direct rows the farthest wins.
_SEVERITY = {"match": 0, published.AGREES_WITHIN_PRINTING: 1, published.DEPENDS_ON_READING: 2, published.UNRESOLVED: 3,
             "differs": 4}


def row_route(row: dict, file_stem: str, kind: str) -> str:
    """The route of a comparison row; rows written before the ``route`` column are inferred: a file
    note starting with :data:`RECOMPUTED_PREFIX` → printed (even in a simulated-data file: the value
    came from the paper's numbers); a file named ``*simulated*`` → simulated; otherwise exhaustive —
    except a TREC item, which no exhaustive computation covers (simulated)."""
    route = (row.get("route") or "").strip()
    if route:
        if route not in published.ROUTES:
            raise ValueError(f"{file_stem}.csv: item {row.get('item')!r}: unknown route {route!r}; "
                             f"expected one of {published.ROUTES}")
        return route
    if (row.get("note") or "").startswith(RECOMPUTED_PREFIX):
        return "printed"
    if "simulated" in file_stem:
        return "simulated"
    return "simulated" if kind == "trec" else "exhaustive"


def _has_value(row: dict) -> bool:
    return row.get("status") not in (None, "", "not reproduced")


def _comparisons(folder: Path, kinds: dict[str, str]) -> dict[str, list[tuple[dict, str]]]:
    """item -> [(comparison row, route)] over every ``published_vs_reproduced*.csv`` of a folder."""
    got: dict[str, list[tuple[dict, str]]] = {}
    for path in sorted(folder.glob("published_vs_reproduced*.csv")) if folder.is_dir() else []:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        for row in frame.to_dict("records"):
            row["_file"] = str(path)
            route = row_route(row, path.stem, kinds.get(row["item"], "")) if _has_value(row) else ""
            got.setdefault(row["item"], []).append((row, route))
    return got


def _row_status(row: dict) -> str:
    """A comparison row's status: its own when it carries one of the statuses of
    :func:`irscales.papers.published.compare`, else (older files) match or differs by its ``match``."""
    status = row.get("status", "")
    if status in _SEVERITY:
        return status
    return "match" if str(row.get("match")) == "True" else "differs"


def _best(rows: list[tuple[dict, str]]) -> tuple[dict | None, str]:
    """The most direct evidence among an item's rows; the largest disagreement beats an agreement at
    equal directness. Without any value, the first row with a note (it may say why)."""
    valued = [(r, route) for r, route in rows if _has_value(r)]
    if valued:
        return max(valued, key=lambda rr: (_DIRECTNESS[rr[1]], _SEVERITY[_row_status(rr[0])]))
    noted = [r for r, _ in rows if r.get("note")]
    return (noted[0] if noted else None), ""


def item_status(kind: str, row: dict | None, route: str, paper: str, item: str) -> tuple[str, str]:
    """(status, reason) of one published item from its chosen comparison row."""
    note = (row or {}).get("note", "") or ""
    if route and route != "simulated":
        status = _row_status(row)
        return (REPRODUCED[route] if status == "match" else status), note
    if kind == "trec":
        runs = missing_runs(paper, item)
        if runs is None:
            why = "the runs are public, but no real-data comparison has been run"
            return "not attempted", f"{why}; {note}" if note else why
        if note.startswith("needs "):  # a notebook's own "needs …; analogue" note: one statement of the runs
            note = note.partition("; ")[2]
        need = f"needs {runs}"
        return "simulated only", f"{need}; {note}" if note else need
    if route == "simulated":
        return "simulated only", note or "computed on simulated data only"
    return "not attempted", note or "no notebook computes it yet"


def file_state(path: Path) -> str | None:
    """``"committed"`` when ``path`` is in git and the same as in the last commit, ``"recomputed"``
    when it is not in git or differs from it (written in this checkout), ``None`` without git."""
    path = Path(path).resolve()
    try:
        def git(*args):
            return subprocess.run(["git", "-C", str(path.parent), *args], capture_output=True, text=True, timeout=30)
        if git("rev-parse", "--is-inside-work-tree").returncode != 0:
            return None
        if git("ls-files", "--error-unmatch", path.name).returncode != 0:
            return "recomputed"
        return "committed" if git("diff", "--quiet", "HEAD", "--", path.name).returncode == 0 else "recomputed"
    except (OSError, subprocess.SubprocessError):
        return None


@dataclass(frozen=True)
class RealSource:
    """A comparison file with values computed on real runs: which file, which TREC track (``None``:
    not a TREC track of the papers), whether it is as committed (:func:`file_state`), where that
    track's runs (or other real data) are found in this checkout (``None``: not found), how many items
    it decides, and for real data other than a TREC track its key in :data:`irscales.papers.items.REAL_DATA`."""

    paper: str
    file: Path
    track: str | None
    state: str | None
    found: Path | None
    items: tuple[str, ...]
    data: str | None = None

    @property
    def label(self) -> str:
        """The per-item source: committed table, recomputed here, or the table as shipped."""
        return {"committed": "committed table", "recomputed": "recomputed here"}.get(self.state, "derived table")

    def sentence(self, among=None) -> str:
        """Where these numbers come from, and how to recompute them: for all its items (the landing
        page), or for those ``among`` the items given (a section)."""
        other = REAL_DATA.get(self.data or "")
        data = (TREC_DATA.get(self.track, "real runs") if self.track else other[0] if other else "real runs")
        where = f"{self.paper}/{self.file.name}"
        k = len(self.items) if among is None else len(set(self.items) & set(among))
        n = f"{k} item{'s' if k != 1 else ''} reproduced on real data" + ("" if among is None else " in this section")
        quirk = f" {DATA_QUIRKS[self.data]}" if self.data in DATA_QUIRKS else ""
        if self.state == "recomputed":
            at = f" found in {self.found}" if self.found else ""
            return (f"{n} {'were' if k != 1 else 'was'} recomputed in this checkout on {data}{at}: "
                    f"{where} differs from the committed table.{quirk}")
        put = (f"To recompute, put the runs in $IRSCALES_TREC/{self.track}/runs/ and the qrels file in "
               f"$IRSCALES_TREC/{self.track}/ (or the same under $IRSCALES_SHARED/trec/) and run make reproduce "
               "(README: Your own TREC data)." if self.track else other[1] if other else
               "To recompute, run the notebook on your runs (README: Your own TREC data).")
        # the same words on every machine: the committed report must not depend on where it was built (issue 52)
        have = ", which a fresh clone does not have"
        what = "the committed derived table" if self.state == "committed" else "the derived table"
        return f"{n} come{'s' if k == 1 else ''} from {what} {where}, computed on {data}{have}. {put}{quirk}"


def _track_of(stem: str) -> str | None:
    tail = stem.rsplit("_", 1)[-1]
    return tail if tail in paths.TREC_TRACKS else None


def _data_of(stem: str) -> str | None:
    """The :data:`~irscales.papers.items.REAL_DATA` key of a comparison file (``…_real_gop`` → ``real_gop``)."""
    return next((k for k in REAL_DATA if stem.endswith(f"_{k}")), None)


def _found(key: str | None) -> Path | None:
    """Where a TREC track's runs, or the real data of a :data:`~irscales.papers.items.REAL_DATA` key,
    are found in this checkout (``None``: not all of them are)."""
    try:
        if key == "real_gop":  # the authors' grid, the TREC-7 score tables and the TREC-8 runs
            where = (paths.gop_dir(), paths.scores_dir(), paths.trec_track("T08"))
            return where[0] if all(w is not None for w in where) else None
        t = paths.trec_track(key) if key in paths.TREC_TRACKS else None
    except paths.MissingSharedData:
        return None
    return t.runs.parent if t is not None else None


def real_sources(paper: str, files: dict[str, str]) -> dict[str, RealSource]:
    """item -> :class:`RealSource` for the items whose status was read from a real-data comparison
    file (``files``: item -> that file)."""
    out: dict[str, RealSource] = {}
    by_file: dict[str, list[str]] = {}
    for item, f in files.items():
        by_file.setdefault(f, []).append(item)
    for f, its in by_file.items():
        track, data = _track_of(Path(f).stem), _data_of(Path(f).stem)
        src = RealSource(paper, Path(f), track, file_state(Path(f)), _found(track or data), tuple(its), data)
        out.update(dict.fromkeys(its, src))
    return out


def paper_table(paper: str, figures: Path, pub_dir: Path | None = None) -> pd.DataFrame:
    """One row per published item of ``paper`` with its route and status (none dropped); ``source``
    says where a real-data value comes from (:class:`RealSource`, also in ``.attrs["real_sources"]``):
    the committed table, or recomputed here (its note then says so).

    A TREC item (kind ``trec``) compared only on simulated data is never a reproduction: it is
    "simulated only" when the runs it needs are not public, else "not attempted". A direct row keeps
    the status its comparison file gives (match: reproduced).
    """
    pub = published.load(paper, (pub_dir or published_dir()) / f"{paper}.csv")
    got = _comparisons(figures / paper, dict(zip(pub["item"], pub["kind"])))
    rows, real_files = [], {}
    for r in pub.itertuples(index=False):
        c, route = _best(got.get(r.item, []))
        status, note = item_status(r.kind, c, route, paper, r.item)
        ours = c["reproduced"] if c is not None and route else ""
        if route == "real":
            real_files[r.item] = c["_file"]
        rows.append({"item": r.item, "location": r.location, "context": r.context, "kind": r.kind,
                     "published": r.value, "ours": ours, "route": route, "status": status,
                     "note": note or r.note, "source": ""})
    sources = real_sources(paper, real_files)
    for row in rows:
        src = sources.get(row["item"])
        if src is not None:
            row["source"] = src.label
            if src.state == "recomputed":
                row["note"] = f"recomputed in this checkout ({src.file.name}); {row['note']}".rstrip("; ")
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame.attrs["real_sources"] = list(dict.fromkeys(sources.values()))
    return frame


def build(figures: Path, pub_dir: Path | None = None) -> tuple[Path, Path]:
    """Write REPORT.md (the text form) and report.html (the page, :mod:`irscales.papers.report_html`)
    under ``figures``; returns their paths."""
    figures = Path(figures)
    figures.mkdir(parents=True, exist_ok=True)
    pub_dir = pub_dir or published_dir()
    papers = [p for p in PAPERS if (pub_dir / f"{p}.csv").exists()]
    tables = {p: paper_table(p, figures, pub_dir) for p in papers}
    sections = analogues_.sections(tables, figures)
    beyond = beyond_report.sections(figures)
    md_path, html_path = figures / "REPORT.md", figures / "report.html"
    write_atomic(md_path, markdown(tables, figures, sections, beyond))
    pages = [(b.anchor, b.title, b.label, beyond_report.html(b)) for b in beyond]
    write_atomic(html_path, report_html.page(tables, figures, sections, pages))
    return md_path, html_path


def sources_of(tables: dict[str, pd.DataFrame]) -> list[RealSource]:
    """Every :class:`RealSource` of the report's tables, paper by paper."""
    return [src for t in tables.values() for src in t.attrs.get("real_sources", [])]


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _md_table(frame: pd.DataFrame) -> list[str]:
    """A frame of display strings as a Markdown table (no index; ``*`` escaped: "** via ns", "Pair*Topic")."""
    def cell(v) -> str:
        return _cell(v).replace("*", "\\*")
    cols = [str(c) for c in frame.columns]
    return (["| " + " | ".join(cell(c) for c in cols) + " |", "|" + "---|" * len(cols)]
            + ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.astype(str).itertuples(index=False)])


def _figure_caption(png: Path, paper: str, sections: dict[str, Analogue]) -> str:
    """What a figure was computed on (:func:`irscales.papers.items.figure_route`); an analogue figure
    carries its section's label."""
    route = figure_route(png.stem)
    if route == "real-data analogue" and paper in sections:
        route = f"{sections[paper].label} (never counted)"
    return f"{png.name} — {route}" if route else png.name


def analogue_markdown(a: Analogue) -> list[str]:
    """One real-data analogue section of REPORT.md: its label first, what was run, the findings, the
    tables beside the simulated run, and each figure beside its simulated counterpart."""
    md = [f"### {a.heading}", "", f"**{a.label}** — {NEVER_COUNTED} (notebook {a.notebook}).", "", a.what, ""]
    md += [f"- {f}" for f in a.findings] + ([""] if a.findings else [])
    for t in a.tables:
        md += [f"**{t.title}** ({', '.join(t.sources)})", ""] + _md_table(t.frame) + [""]
    if a.figures:
        md += ["Figures, the real-data analogue beside the simulated run:", ""]
        md += [f"- {a.paper}/{f.name} beside {f'{a.paper}/{sim.name}' if sim else '(no simulated counterpart)'}"
               for f, sim in a.figures] + [""]
    return md


def markdown(tables: dict[str, pd.DataFrame], figures: Path, sections: dict[str, Analogue] | None = None,
             beyond: list[beyond_report.Beyond] | None = None) -> str:
    """REPORT.md: the per-paper summary and errata first, where real-data numbers come from and which
    real-data analogues exist, then every differing item (the errata), the disagreements that are no
    errata, then every item of each paper, its figures and its real-data analogue, and last the sections
    beyond the papers (``sections``: default :func:`irscales.papers.analogues.sections`; ``beyond``:
    :func:`irscales.papers.beyond_report.sections`)."""
    sections = analogues_.sections(tables, figures) if sections is None else sections
    beyond = beyond_report.sections(figures) if beyond is None else beyond
    n, overall = overall_line(tables)
    md = ["# irscales — published vs reproduced", "",
          "Generated by `make report` from `data/published/` and the notebooks' outputs; do not edit. "
          "The page `report.html` shows the same with the paper's tables as grids and our figures beside them.",
          "", f"**{n} published items**: {overall}", ""]
    for p, t in tables.items():
        md += [f"- **{PAPERS[p]}** — {summary_line(t)}", f"  - {errata_paragraph(t)}"]
        if not_errata_sentence(t):
            md.append(f"  - {not_errata_sentence(t)}")
        if unresolved_sentence(t):
            md.append(f"  - {unresolved_sentence(t)}")
    sources = sources_of(tables)
    if sources:
        md += ["", "Where the numbers computed on real runs come from:", ""] + [f"- {s.sentence()}" for s in sources]
        md += [f"- {g}" for t in tables.values() for g in grid_sentences(t)]
    if sections:
        md += ["", "Real-data analogues — real data that is not the paper's, shown beside the simulated run and never "
                   "counted as reproductions:", ""]
        md += [f"- {a.title} — *{a.label}* (section \"{a.heading}\" at the end of "
               f"{PAPERS[a.paper].partition(' — ')[0]})" for a in sections.values()]
    if beyond:
        md += ["", "Beyond the papers — analyses no paper ran, on real data; no published item, never counted:", ""]
        md += [f"- {b.title} — *{b.label}* (the last section)" for b in beyond]
    md += ["", "What each status means:", ""] + [f"- *{s}*: {MEANING[s]}" for s in STATUSES] + [""]
    md += ["## Differing items (errata)", "", "| paper | item | published | ours | relative difference | reason |",
           "|---|---|---|---|---|---|"]
    for p, t in tables.items():
        for r in t[t["status"] == "differs"].itertuples(index=False):
            rel = relative_difference(r.published, r.ours)
            size = "" if rel is None else f"{100 * rel:.3g}%"
            md.append(f"| {p} | {r.item} | {r.published} | {r.ours} | {size} | {_cell(r.note)} |")
    md += ["", "## Disagreements that are no errata", "",
           "Recomputed by a direct route, not rounding to the printed value, and still no erratum: the printing "
           "allows it, nothing shows whether the paper truncated or rounded, or the paper leaves a convention open.",
           "",
           "| paper | item | published | ours | status | why |", "|---|---|---|---|---|---|"]
    for p, t in tables.items():
        for r in t[t["status"].isin(NOT_ERRATA)].itertuples(index=False):
            md.append(f"| {p} | {r.item} | {r.published} | {r.ours} | {r.status} | {_cell(r.note)} |")
    md += ["", "## Unresolved", "",
           "Recomputed by a direct route and not reproduced, but the paper computed the value with settings it does "
           "not give: neither an erratum nor a reading. The note gives the values tried.", "",
           "| paper | item | published | ours | why |", "|---|---|---|---|---|"]
    for p, t in tables.items():
        for r in t[t["status"] == UNRESOLVED].itertuples(index=False):
            md.append(f"| {p} | {r.item} | {r.published} | {r.ours} | {_cell(r.note)} |")
    md.append("")
    for p, t in tables.items():
        md += [f"## {PAPERS[p]}", "", summary_line(t), ""]
        md += [s.sentence() for s in t.attrs.get("real_sources", [])] + ([""] if t.attrs.get("real_sources") else [])
        md += [g for g in grid_sentences(t)] + ([""] if grid_sentences(t) else [])
        md += ["| item | location | published | ours | route | status | note |", "|---|---|---|---|---|---|---|"]
        md += [f"| {r.item} | {r.location} | {r.published} | {r.ours} | {r.route}{f' ({r.source})' if r.source else ''} "
               f"| {r.status} | {_cell(r.note)} |" for r in t.itertuples(index=False)]
        pngs = sorted((figures / p).glob("*.png")) if (figures / p).is_dir() else []
        md += [""]
        for f in pngs:
            md += [f"![{f.stem}]({p}/{f.name})", f"*{_cell(_figure_caption(f, p, sections))}*", ""]
        if p in sections:
            md += analogue_markdown(sections[p])
    for b in beyond:
        md += beyond_report.markdown(b, _md_table)
    return "\n".join(md) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    figures = Path(argv[0]) if argv else Path("figures")
    md, page = build(figures)
    print(f"wrote {md} and {page}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

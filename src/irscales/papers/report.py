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
``reproduced on real data``         computed on real runs (TREC files or a public collection)
``differs``                         recomputed by one of those routes and it disagrees (the note says why)
``simulated only``                  needs runs nobody can share (the note names them); at most the
                                    analysis ran on simulated data, which never counts as a reproduction
``not attempted``                   no route has produced it (the note says why)

When several comparison files cover an item the most direct evidence wins: real data, printed
inputs or exhaustive computation over simulated data; among equally direct rows a disagreement
is kept (never hidden behind an agreement).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd

from irscales.papers import published, report_html
from irscales.papers.items import (MEANING, PAPERS, REPRODUCED, STATUSES, errata, errata_paragraph, missing_runs,
                                   overall_line, relative_difference, short_item, status_counts, summary_line,
                                   unit_key, unit_order, unit_sort, unit_title)
from irscales.paths import published_dir

__all__ = ["RECOMPUTED_PREFIX", "COLUMNS", "row_route", "item_status", "paper_table", "build", "markdown", "main",
           "PAPERS", "REPRODUCED", "STATUSES", "MEANING", "missing_runs", "status_counts", "summary_line",
           "overall_line", "unit_key", "unit_title", "unit_sort", "unit_order", "short_item", "relative_difference",
           "errata", "errata_paragraph"]

#: Note prefix of comparison rows written before the ``route`` column: recomputed from printed inputs.
RECOMPUTED_PREFIX = published.PRINTED_NOTE
#: Precedence of routes when several files cover an item: the most direct evidence wins.
_DIRECTNESS = {"real": 2, "printed": 2, "exhaustive": 2, "simulated": 1}

COLUMNS = ["item", "location", "context", "kind", "published", "ours", "route", "status", "note"]


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
            route = row_route(row, path.stem, kinds.get(row["item"], "")) if _has_value(row) else ""
            got.setdefault(row["item"], []).append((row, route))
    return got


def _best(rows: list[tuple[dict, str]]) -> tuple[dict | None, str]:
    """The most direct evidence among an item's rows; a disagreement beats an agreement at equal
    directness. Without any value, the first row with a note (it may say why)."""
    valued = [(r, route) for r, route in rows if _has_value(r)]
    if valued:
        return max(valued, key=lambda rr: (_DIRECTNESS[rr[1]], str(rr[0].get("match")) != "True"))
    noted = [r for r, _ in rows if r.get("note")]
    return (noted[0] if noted else None), ""


def item_status(kind: str, row: dict | None, route: str, paper: str, item: str) -> tuple[str, str]:
    """(status, reason) of one published item from its chosen comparison row."""
    note = (row or {}).get("note", "") or ""
    if route and route != "simulated":
        if str(row.get("match")) == "True":
            return REPRODUCED[route], note
        return "differs", note
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


def paper_table(paper: str, figures: Path, pub_dir: Path | None = None) -> pd.DataFrame:
    """One row per published item of ``paper`` with its route and status (none dropped).

    A TREC item (kind ``trec``) compared only on simulated data is never a reproduction: it is
    "simulated only" when the runs it needs are not public, else "not attempted". A row from real
    data, printed inputs or exhaustive computation that disagrees is "differs".
    """
    pub = published.load(paper, (pub_dir or published_dir()) / f"{paper}.csv")
    got = _comparisons(figures / paper, dict(zip(pub["item"], pub["kind"])))
    rows = []
    for r in pub.itertuples(index=False):
        c, route = _best(got.get(r.item, []))
        status, note = item_status(r.kind, c, route, paper, r.item)
        ours = c["reproduced"] if c is not None and route else ""
        rows.append({"item": r.item, "location": r.location, "context": r.context, "kind": r.kind,
                     "published": r.value, "ours": ours, "route": route, "status": status,
                     "note": note or r.note})
    return pd.DataFrame(rows, columns=COLUMNS)


def build(figures: Path, pub_dir: Path | None = None) -> tuple[Path, Path]:
    """Write REPORT.md (the text form) and report.html (the page, :mod:`irscales.papers.report_html`)
    under ``figures``; returns their paths."""
    figures = Path(figures)
    figures.mkdir(parents=True, exist_ok=True)
    pub_dir = pub_dir or published_dir()
    papers = [p for p in PAPERS if (pub_dir / f"{p}.csv").exists()]
    tables = {p: paper_table(p, figures, pub_dir) for p in papers}
    md_path, html_path = figures / "REPORT.md", figures / "report.html"
    md_path.write_text(markdown(tables, figures), encoding="utf-8")
    html_path.write_text(report_html.page(tables, figures), encoding="utf-8")
    return md_path, html_path


def markdown(tables: dict[str, pd.DataFrame], figures: Path) -> str:
    """REPORT.md: the per-paper summary and errata first, then every differing item, then every item."""
    n, overall = overall_line(tables)
    md = ["# irscales — published vs reproduced", "",
          "Generated by `make report` from `data/published/` and the notebooks' outputs; do not edit. "
          "The page `report.html` shows the same with the paper's tables as grids and our figures beside them.",
          "", f"**{n} published items**: {overall}", ""]
    for p, t in tables.items():
        md += [f"- **{PAPERS[p]}** — {summary_line(t)}", f"  - {errata_paragraph(t)}"]
    md += ["", "What each status means:", ""] + [f"- *{s}*: {MEANING[s]}" for s in STATUSES] + [""]
    md += ["## Differing items", "", "| paper | item | published | ours | relative difference | reason |",
           "|---|---|---|---|---|---|"]
    for p, t in tables.items():
        for r in t[t["status"] == "differs"].itertuples(index=False):
            rel = relative_difference(r.published, r.ours)
            size = "" if rel is None else f"{100 * rel:.3g}%"
            md.append(f"| {p} | {r.item} | {r.published} | {r.ours} | {size} | {r.note} |")
    md.append("")
    for p, t in tables.items():
        md += [f"## {PAPERS[p]}", "", summary_line(t), "",
               "| item | location | published | ours | route | status | note |", "|---|---|---|---|---|---|---|"]
        md += [f"| {r.item} | {r.location} | {r.published} | {r.ours} | {r.route} | {r.status} | {r.note} |"
               for r in t.itertuples(index=False)]
        pngs = sorted((figures / p).glob("*.png")) if (figures / p).is_dir() else []
        md += [""] + [f"![{f.stem}]({p}/{f.name})" for f in pngs] + [""]
    return "\n".join(md) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    figures = Path(argv[0]) if argv else Path("figures")
    md, page = build(figures)
    print(f"wrote {md} and {page}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

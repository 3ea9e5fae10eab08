"""The companion report: every published number beside ours, generated from the notebooks' outputs.

``python -m irscales.papers.report [FIGURES_DIR]`` reads

* ``data/published/<paper>.csv``          what the papers print (see :mod:`irscales.papers.published`)
* ``FIGURES_DIR/<paper>/published_vs_reproduced*.csv``  what the notebooks reproduced, each row
  with the ``route`` that produced it (:data:`irscales.papers.published.ROUTES`)
* ``FIGURES_DIR/<paper>/*.png``           the figures

and writes ``FIGURES_DIR/REPORT.md`` (the text form, here) and ``FIGURES_DIR/report.html`` (the page,
:mod:`irscales.papers.report_html`). This module holds what both share: the statuses, the items grouped by
the table, figure, example or section of the paper they belong to (:func:`unit_key`, in the paper's
order by :func:`unit_order`) and the errata sentence. Every published row gets one status (none is
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

from irscales.papers import published
from irscales.paths import published_dir

PAPERS = {
    "fff21": "FFF21 — Ferrante, Ferro, Fuhr: Towards Meaningful Statements in IR Evaluation: Mapping Evaluation "
             "Measures to Interval Scales. IEEE Access 9:136182–136216, 2021. doi:10.1109/ACCESS.2021.3116857",
    "ffp19": "FFP19 — Ferrante, Ferro, Pontarollo: A Formal Theory to Determine Scale Properties of Evaluation "
             "Measures. SEBD 2019, CEUR-WS vol. 2400, paper 19 (no DOI; ceur-ws.org/Vol-2400/paper-19.pdf)",
    "fer17": "Fer17 — Ferro: What Does Affect the Correlation Among Evaluation Measures? ACM TOIS 36(2):19:1–19:40, "
             "2017. doi:10.1145/3106371",
    "ffp17": "FFP17 — Ferrante, Ferro, Pontarollo: An Interval-Like Scale Property for IR Evaluation Measures. "
             "EVIA 2017, CEUR-WS vol. 2008, pp. 10–15 (no DOI; ceur-ws.org/Vol-2008/paper_11.pdf)",
    "mm23": "MM23 — Moffat, Mackenzie: How Much Freedom Does An Effectiveness Metric Really Have? JASIST "
            "75(6):686–703, 2024 (preprint arXiv:2309.09477). doi:10.1002/asi.24874",
}
REPRODUCED = {"exhaustive": "reproduced exhaustively", "printed": "reproduced from printed inputs",
              "real": "reproduced on real data"}
STATUSES = [*REPRODUCED.values(), "differs", "simulated only", "not attempted"]
MEANING = {
    "reproduced exhaustively": "exact computation over all runs / SERP pairs or the formal theory (no data needed)",
    "reproduced from printed inputs": "recomputed from numbers the paper itself prints",
    "reproduced on real data": "computed on real runs (TREC files or a public collection)",
    "differs": "recomputed by one of the routes above and it disagrees; the note gives the reason",
    "simulated only": "needs runs nobody can share (the note names them); simulated data never counts",
    "not attempted": "no route has produced it yet; the note says why",
}

#: Note prefix of comparison rows written before the ``route`` column: recomputed from printed inputs.
RECOMPUTED_PREFIX = "recomputed from the paper's printed"
#: Precedence of routes when several files cover an item: the most direct evidence wins.
_DIRECTNESS = {"real": 2, "printed": 2, "exhaustive": 2, "simulated": 1}

#: The runs each paper's TREC items (kind ``trec``) need that are not public; ``None``: public.
_FFF21_RUNS = {
    "T08": None,  # all 129 TREC-8 Ad hoc runs and qrels are public (isoboroff/trec8-scores)
    "T26": "the TREC 2017 Common Core (T26) runs",
    "T27": "the TREC 2018 Common Core (T27) runs",
}
_PAPER_RUNS = {
    "fer17": "the Grid of Points runs, built on TREC corpora that are not public",
    "mm23": "the 110 TREC 2004 Robust runs and the judgments of its 249 topics "
            "(only 10 runs and 100 topics' judgments are public)",
}


def missing_runs(paper: str, item: str) -> str | None:
    """The runs a TREC item needs that nobody can share, or ``None`` if they are public."""
    if paper == "fff21":
        found = sorted(set(re.findall(r"\bT(?:08|26|27)\b", item.replace("_", " "))))
        if not found:
            return "the TREC-8, 2017 and 2018 Common Core runs of §7 (T26 and T27 are not public)"
        needed = [_FFF21_RUNS[c] for c in found if _FFF21_RUNS[c]]
        return " and ".join(needed) if needed else None
    return _PAPER_RUNS.get(paper, "the TREC runs the paper used")


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


def status_counts(table: pd.DataFrame) -> dict[str, int]:
    return {s: int((table["status"] == s).sum()) for s in STATUSES}


def summary_line(table: pd.DataFrame) -> str:
    """One line: items, reproduced by route, differing, needing unavailable runs, not attempted."""
    c = status_counts(table)
    return (f"{len(table)} items: reproduced {c['reproduced exhaustively']} exhaustively, "
            f"{c['reproduced from printed inputs']} from printed inputs, {c['reproduced on real data']} on real data; "
            f"{c['differs']} differ; {c['simulated only']} need runs nobody can share (simulated only); "
            f"{c['not attempted']} not attempted")


_UNIT = re.compile(r"^(table|fig|ex|fn|s)(\d+(?:\.\d+)*)([a-z]?)$")
_UNIT_NAMES = {"table": "Table", "fig": "Figure", "ex": "Example", "fn": "Footnote", "s": "§"}


def unit_key(item: str) -> str:
    """The table, figure, example or section of the paper an item belongs to: its id's first part
    (``table2/T08_05/P`` → ``table2``)."""
    return item.split("/", 1)[0]


def unit_title(key: str) -> str:
    """``table2`` → "Table 2", ``fig8a`` → "Figure 8(a)", ``s3.4.1`` → "§3.4.1", ``ex12`` → "Example 12"."""
    m = _UNIT.match(key)
    if not m:
        return key
    kind, num, sub = m.groups()
    return f"{_UNIT_NAMES[kind]}{'' if kind == 's' else ' '}{num}{f'({sub})' if sub else ''}"


def _unit_sort(key: str) -> tuple[str, tuple[int, ...], str]:
    m = _UNIT.match(key)
    return (m.group(1), tuple(map(int, m.group(2).split("."))), m.group(3)) if m else ("", (), key)


def unit_order(keys: list[str]) -> list[str]:
    """Units in the paper's order: the order in which the published file first names them, except
    that a unit named later than a unit of the same type with a larger number (an example added at
    the end of the file) moves in front of the first such unit: tables, figures, examples,
    footnotes and sections each keep their numbering."""
    out: list[str] = []
    for k in dict.fromkeys(keys):
        kind = _unit_sort(k)
        later = [i for i, o in enumerate(out) if _unit_sort(o)[0] == kind[0] and _unit_sort(o) > kind]
        out.insert(later[0] if later else len(out), k)
    return out


def short_item(item: str) -> str:
    """An item's id without its unit (``table1/B/AP`` → ``B/AP``)."""
    return item.partition("/")[2] or item


def relative_difference(published_value: str, ours: str) -> float | None:
    """|ours − published| / |published| when both are numbers (percent signs kept on both sides),
    else ``None``; the size by which the differs view sorts."""
    from fractions import Fraction

    a = published._parse_number(str(published_value))[0]
    try:
        b = Fraction(str(ours).replace(",", "").rstrip("%")) if str(ours).strip() else None
    except (ValueError, ZeroDivisionError):
        b = None
    if a is None or b is None:
        return None
    a = Fraction(a) if not isinstance(a, Fraction) else a
    if a == 0:
        return None if b != 0 else 0.0
    return float(abs(b - a) / abs(a))


def errata(table: pd.DataFrame) -> list[tuple[str, list[str]]]:
    """The differing items grouped by unit in the paper's order: [(unit key, [short item ids])]."""
    d = table[table["status"] == "differs"]
    groups: dict[str, list[str]] = {}
    for item in d["item"]:
        groups.setdefault(unit_key(item), []).append(short_item(item))
    order = unit_order([unit_key(i) for i in table["item"]])
    return [(k, groups[k]) for k in order if k in groups]


def errata_paragraph(table: pd.DataFrame, link=None, escape=str, max_items: int = 4) -> str:
    """One generated sentence naming where the paper and our computation disagree, unit by unit
    (``link(key, title)`` may wrap each unit's name, e.g. in an HTML anchor; ``escape`` is applied
    to the item ids)."""
    found = errata(table)
    if not found:
        return "No differing item: everything recomputed agrees with the printed values."
    parts = []
    for key, items in found:
        title = unit_title(key)
        name = link(key, title) if link else title
        more = f" and {len(items) - max_items} more" if len(items) > max_items else ""
        shown = ", ".join(escape(i) for i in items[:max_items]) + more
        parts.append(f"{name} ({shown})")
    n = sum(len(i) for _, i in found)
    return f"{n} item{'s differ' if n != 1 else ' differs'} — " + "; ".join(parts) + "."


def build(figures: Path, pub_dir: Path | None = None) -> tuple[Path, Path]:
    """Write REPORT.md (the text form) and report.html (the page, :mod:`irscales.papers.report_html`)
    under ``figures``; returns their paths."""
    from irscales.papers import report_html

    figures = Path(figures)
    figures.mkdir(parents=True, exist_ok=True)
    pub_dir = pub_dir or published_dir()
    papers = [p for p in PAPERS if (pub_dir / f"{p}.csv").exists()]
    tables = {p: paper_table(p, figures, pub_dir) for p in papers}
    md_path, html_path = figures / "REPORT.md", figures / "report.html"
    md_path.write_text(markdown(tables, figures), encoding="utf-8")
    html_path.write_text(report_html.page(tables, figures), encoding="utf-8")
    return md_path, html_path


def overall_line(tables: dict[str, pd.DataFrame]) -> tuple[int, str]:
    """(number of published items, "n status, …") over all papers."""
    total = pd.concat(tables.values()) if tables else pd.DataFrame(columns=["status"])
    counts = status_counts(total)
    return len(total), ", ".join(f"{counts[s]} {s}" for s in STATUSES)


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

"""The companion report: every published number beside ours, generated from the notebooks' outputs.

``python -m irscales.report [FIGURES_DIR]`` reads

* ``data/published/<paper>.csv``          what the papers print (see :mod:`irscales.published`)
* ``FIGURES_DIR/<paper>/published_vs_reproduced*.csv``  what the notebooks reproduced, each row
  with the ``route`` that produced it (:data:`irscales.published.ROUTES`)
* ``FIGURES_DIR/<paper>/*.png``           the figures

and writes ``FIGURES_DIR/REPORT.md`` and ``FIGURES_DIR/report.html``. Every published row gets one
status (none is dropped); the status says what was done:

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

import html
import re
import sys
from pathlib import Path

import pandas as pd

from . import published
from .paths import published_dir

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
        rows.append({"item": r.item, "location": r.location, "kind": r.kind, "published": r.value,
                     "ours": ours, "route": route, "status": status, "note": note or r.note})
    return pd.DataFrame(rows, columns=["item", "location", "kind", "published", "ours", "route", "status", "note"])


def status_counts(table: pd.DataFrame) -> dict[str, int]:
    return {s: int((table["status"] == s).sum()) for s in STATUSES}


def summary_line(table: pd.DataFrame) -> str:
    """One line: items, reproduced by route, differing, needing unavailable runs, not attempted."""
    c = status_counts(table)
    return (f"{len(table)} items: reproduced {c['reproduced exhaustively']} exhaustively, "
            f"{c['reproduced from printed inputs']} from printed inputs, {c['reproduced on real data']} on real data; "
            f"{c['differs']} differ; {c['simulated only']} need runs nobody can share (simulated only); "
            f"{c['not attempted']} not attempted")


def build(figures: Path, pub_dir: Path | None = None) -> tuple[Path, Path]:
    """Write REPORT.md and report.html under ``figures``; returns their paths."""
    figures = Path(figures)
    figures.mkdir(parents=True, exist_ok=True)
    pub_dir = pub_dir or published_dir()
    papers = [p for p in PAPERS if (pub_dir / f"{p}.csv").exists()]
    tables = {p: paper_table(p, figures, pub_dir) for p in papers}
    total = pd.concat(tables.values()) if tables else pd.DataFrame(columns=["status"])
    counts = status_counts(total)
    overall = ", ".join(f"{counts[s]} {s}" for s in STATUSES)

    md = ["# irscales — published vs reproduced", "",
          "Generated by `make report` from `data/published/` and the notebooks' outputs; do not edit.", "",
          f"**{len(total)} published items**: {overall}", ""]
    md += [f"- **{PAPERS[p]}** — {summary_line(tables[p])}" for p in papers]
    md += ["", "What each status means:", ""] + [f"- *{s}*: {MEANING[s]}" for s in STATUSES] + [""]
    body = [f"<h1>irscales — published vs reproduced</h1><p id='summary'><b>{len(total)} published items</b>: "
            f"{html.escape(overall)}</p><ul id='papers'>"]
    body += [f"<li><a href='#{p}'><b>{html.escape(PAPERS[p])}</b></a> — {html.escape(summary_line(tables[p]))}</li>"
             for p in papers]
    body.append("</ul><dl id='statuses'>" + "".join(f"<dt>{html.escape(s)}</dt><dd>{html.escape(MEANING[s])}</dd>"
                                                    for s in STATUSES) + "</dl>")
    for p in papers:
        t = tables[p]
        md += [f"## {PAPERS[p]}", "", summary_line(t), "",
               "| item | location | published | ours | route | status | note |", "|---|---|---|---|---|---|---|"]
        md += [f"| {r.item} | {r.location} | {r.published} | {r.ours} | {r.route} | {r.status} | {r.note} |"
               for r in t.itertuples(index=False)]
        pngs = sorted((figures / p).glob("*.png")) if (figures / p).is_dir() else []
        md += [""] + [f"![{f.stem}]({p}/{f.name})" for f in pngs] + [""]
        body.append(f"<h2 id='{p}'>{html.escape(PAPERS[p])}</h2><p class='paper-summary'>{html.escape(summary_line(t))}</p>")
        body.append(t.to_html(index=False, escape=True, classes="items"))
        body += [f"<figure><img src='{p}/{html.escape(f.name)}' alt='{html.escape(f.stem)}'>"
                 f"<figcaption>{html.escape(f.stem)}</figcaption></figure>" for f in pngs]
    md_path, html_path = figures / "REPORT.md", figures / "report.html"
    md_path.write_text("\n".join(md) + "\n", encoding="utf-8")
    style = ("body{font-family:sans-serif;max-width:1200px;margin:auto}table{border-collapse:collapse;font-size:12px}"
             "td,th{border:1px solid #ccc;padding:2px 6px}img{max-width:100%}dt{font-weight:bold}")
    # records in the DOM how many figures actually decoded, so a headless browser test can check it
    script = ("<script>window.addEventListener('load',function(){var i=document.images,n=0;"
              "for(var k=0;k<i.length;k++){if(i[k].complete&&i[k].naturalWidth>0)n++;}"
              "document.body.setAttribute('data-images-loaded',n+'/'+i.length);});</script>")
    html_path.write_text(f"<!doctype html><html><head><meta charset='utf-8'><title>irscales report</title>"
                         f"<style>{style}</style>{script}</head><body>{''.join(body)}</body></html>\n",
                         encoding="utf-8")
    return md_path, html_path


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    figures = Path(argv[0]) if argv else Path("figures")
    md, page = build(figures)
    print(f"wrote {md} and {page}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

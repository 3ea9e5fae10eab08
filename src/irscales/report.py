"""The companion report: every published number beside ours, generated from the notebooks' outputs.

``python -m irscales.report [FIGURES_DIR]`` reads

* ``data/published/<paper>.csv``          what the papers print (see :mod:`irscales.published`)
* ``FIGURES_DIR/<paper>/published_vs_reproduced.csv``  what a notebook reproduced
* ``FIGURES_DIR/<paper>/*.png``           the figures

and writes ``FIGURES_DIR/REPORT.md`` and ``FIGURES_DIR/report.html``. Every published row gets a
status; none is dropped:

``reproduced``        a notebook recomputed it and it agrees at the printed precision
``differs``           recomputed, disagrees (the note says why, when we know)
``simulated only``    needs TREC runs we do not have; the analysis ran on simulated data
``not attempted``     no notebook has reproduced it yet
"""

from __future__ import annotations

import html
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
STATUSES = ["reproduced", "differs", "simulated only", "not attempted"]


RECOMPUTED_PREFIX = "recomputed from the paper's printed"


def _comparisons(folder: Path) -> dict[str, tuple[dict, bool]]:
    """item -> (comparison row, from a simulated-data file?) over every
    ``published_vs_reproduced*.csv`` of a paper's folder; a reproduced row beats a
    "not reproduced" one, and a row from real data beats one from simulated data."""
    got: dict[str, tuple[dict, bool]] = {}
    for path in sorted(folder.glob("published_vs_reproduced*.csv")) if folder.is_dir() else []:
        simulated = "simulated" in path.stem
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        for row in frame.to_dict("records"):
            have = got.get(row["item"])
            rank = (row.get("status") not in ("", "not reproduced"), not simulated)
            if have is None or rank > (have[0].get("status") not in ("", "not reproduced"), not have[1]):
                got[row["item"]] = (row, simulated)
    return got


def paper_table(paper: str, figures: Path, pub_dir: Path | None = None) -> pd.DataFrame:
    """One row per published item of ``paper`` with its status (none dropped).

    A TREC-data item (kind ``trec``) compared on simulated data (a comparison file whose name says
    ``simulated``) is "simulated only", whether or not it happens to agree — unless its note says the
    value was recomputed from the paper's own printed inputs (note starting with
    ``recomputed from the paper's printed``), which is a reproduction.
    """
    pub = published.load(paper, (pub_dir or published_dir()) / f"{paper}.csv")
    got = _comparisons(figures / paper)
    rows = []
    for r in pub.itertuples(index=False):
        c, simulated = got.get(r.item, (None, False))
        if c is not None and c.get("status") not in (None, "", "not reproduced"):
            status = "reproduced" if str(c["match"]) == "True" else "differs"
            note = c.get("note", "") or r.note
            recomputed = note.startswith(RECOMPUTED_PREFIX)
            if r.kind == "trec" and (status == "differs" or simulated) and not recomputed:
                status = "simulated only"
            rep = c["reproduced"]
        else:
            status = "simulated only" if r.kind == "trec" else "not attempted"
            rep, note = "", r.note
        rows.append({"item": r.item, "location": r.location, "kind": r.kind, "published": r.value,
                     "ours": rep, "status": status, "note": note})
    return pd.DataFrame(rows, columns=["item", "location", "kind", "published", "ours", "status", "note"])


def build(figures: Path, pub_dir: Path | None = None) -> tuple[Path, Path]:
    """Write REPORT.md and report.html under ``figures``; returns their paths."""
    figures = Path(figures)
    figures.mkdir(parents=True, exist_ok=True)
    pub_dir = pub_dir or published_dir()
    papers = [p for p in PAPERS if (pub_dir / f"{p}.csv").exists()]
    tables = {p: paper_table(p, figures, pub_dir) for p in papers}
    total = pd.concat(tables.values()) if tables else pd.DataFrame(columns=["status"])
    counts = {s: int((total["status"] == s).sum()) for s in STATUSES}

    md = ["# irscales — published vs reproduced", "",
          "Generated by `make report` from `data/published/` and the notebooks' outputs; do not edit.", "",
          f"**{len(total)} published items**: " + ", ".join(f"{counts[s]} {s}" for s in STATUSES), ""]
    body = [f"<h1>irscales — published vs reproduced</h1><p id='summary'><b>{len(total)} published items</b>: "
            + ", ".join(f"{counts[s]} {html.escape(s)}" for s in STATUSES) + "</p>"]
    for p in papers:
        t = tables[p]
        pc = {s: int((t["status"] == s).sum()) for s in STATUSES}
        md += [f"## {PAPERS[p]}", "", ", ".join(f"{pc[s]} {s}" for s in STATUSES), "",
               "| item | location | published | ours | status | note |", "|---|---|---|---|---|---|"]
        md += [f"| {r.item} | {r.location} | {r.published} | {r.ours} | {r.status} | {r.note} |"
               for r in t.itertuples(index=False)]
        pngs = sorted((figures / p).glob("*.png")) if (figures / p).is_dir() else []
        md += [""] + [f"![{f.stem}]({p}/{f.name})" for f in pngs] + [""]
        body.append(f"<h2>{html.escape(PAPERS[p])}</h2>")
        body.append(t.to_html(index=False, escape=True, classes="items"))
        body += [f"<figure><img src='{p}/{html.escape(f.name)}' alt='{html.escape(f.stem)}'>"
                 f"<figcaption>{html.escape(f.stem)}</figcaption></figure>" for f in pngs]
    md_path, html_path = figures / "REPORT.md", figures / "report.html"
    md_path.write_text("\n".join(md) + "\n", encoding="utf-8")
    style = ("body{font-family:sans-serif;max-width:1200px;margin:auto}table{border-collapse:collapse;font-size:12px}"
             "td,th{border:1px solid #ccc;padding:2px 6px}img{max-width:100%}")
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

"""What the report's text and page share (:mod:`irscales.papers.report`,
:mod:`irscales.papers.report_html`): the papers, the statuses and what they mean, the runs a TREC
item needs, and the items grouped by the table, figure, example or section of the paper they belong
to (:func:`unit_key`, in the paper's order by :func:`unit_order`) with the errata sentence.
"""

from __future__ import annotations

import re

import pandas as pd

from irscales.papers.printing import agreement, exact
from irscales.papers.published import AGREES_WITHIN_PRINTING, DEPENDS_ON_READING, UNRESOLVED

__all__ = ["PAPERS", "REPRODUCED", "NOT_ERRATA", "UNRESOLVED", "STATUSES", "MEANING", "TREC_DATA", "REAL_DATA",
           "missing_runs", "status_counts", "summary_line", "overall_line", "unit_key", "unit_title", "unit_sort",
           "unit_order", "short_item", "relative_difference", "errata", "errata_paragraph", "not_errata_sentence",
           "unresolved_sentence", "DATA_QUIRKS", "grid_sentences", "FIGURE_ROUTES", "figure_route"]

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
#: Recomputed by a direct route, disagreeing with the printed value, and still no erratum.
NOT_ERRATA = (AGREES_WITHIN_PRINTING, DEPENDS_ON_READING)
#: Recomputed, not reproduced, and the paper's settings unknown: neither an erratum nor a reading, counted apart.
STATUSES = [*REPRODUCED.values(), *NOT_ERRATA, UNRESOLVED, "differs", "simulated only", "not attempted"]
MEANING = {
    "reproduced exhaustively": "exact computation over all runs / SERP pairs or the formal theory (no data needed)",
    "reproduced from printed inputs": "recomputed from numbers the paper itself prints",
    "reproduced on real data": "computed on real runs or their published per-topic scores (TREC files, a public "
                               "collection, the Fer17 authors' Grid of Points)",
    AGREES_WITHIN_PRINTING: "recomputed by one of the routes above; it does not round to the printed value, but the "
                            "printing allows it: truncated instead of rounded where the same column, table or passage "
                            "prints other values only truncation reproduces (the note names them), within the "
                            "tolerance of a word the text qualifies the number with (about, around, roughly, ≳ …), "
                            "a range end that holds as stated, or a value the text says it read off a figure, within "
                            "what the figure can show (the note states the resolution assumed and why); the note says "
                            "which and why. No erratum",
    DEPENDS_ON_READING: "recomputed by one of the routes above; the printed value is right under one reading and "
                        "nothing decides which the paper used: a value only truncation gives, where nothing in the "
                        "same column, table or passage shows whether the paper truncated or rounded (the note gives "
                        "both printings and that evidence), or a convention the paper leaves open (a discount, an "
                        "aggregation) whose other reading gives the printed value (the note names the question and "
                        "gives each reading's value). No erratum",
    UNRESOLVED: "recomputed by one of the routes above; the printed value is not reproduced and the paper computed it "
                "with settings it does not give (a program's), so it can be called neither an erratum nor a reading; "
                "the note gives the values tried",
    "differs": "recomputed by one of the routes above, and the printed value is wrong at its own precision under "
               "every reasonable reading (rounded, or truncated where nothing shows the paper rounds there), or "
               "inconsistent with the paper's own printed numbers under every setting it leaves open; the note gives "
               "the evidence",
    "simulated only": "needs runs nobody can share (the note names them); simulated data never counts",
    "not attempted": "no route has produced it yet; the note says why",
}

#: The runs each paper's TREC items (kind ``trec``) need that are not public; ``None``: public.
_FFF21_RUNS = {
    "T08": None,  # all 129 TREC-8 Ad hoc runs and qrels are public (isoboroff/trec8-scores)
    "T26": "the TREC 2017 Common Core (T26) runs",
    "T27": "the TREC 2018 Common Core (T27) runs",
}
#: Real TREC data the report's items may be computed on: track -> what it is.
TREC_DATA = {"T08": "the 129 TREC-8 Ad hoc runs and their qrels", "T26": "the TREC 2017 Common Core runs and qrels",
             "T27": "the TREC 2018 Common Core runs and qrels", "R04": "the 110 TREC 2004 Robust runs and qrels"}
#: Real data other than a TREC track folder that a comparison file of route ``real`` may be computed
#: on, by the tag of its file name (``published_vs_reproduced_<tag>.csv``): (what it is, how to recompute).
REAL_DATA = {
    "real_gop": ("the authors' published Grid of Points on T07 and T08 (gridofpoints/trec-jasist2017, MATTERS files) "
                 "against the original systems: the 129 TREC-8 Ad hoc runs and the per-topic AP and P@10 of all 103 "
                 "TREC-7 runs",
                 "To recompute, point IRSCALES_GOP at the Grid of Points, IRSCALES_SCORES at the score tables "
                 "(T07-adhoc/) and IRSCALES_TREC at the TREC-8 runs and qrels (T08/), or put all three under "
                 "$IRSCALES_SHARED (gop/trec-jasist2017/, scores/, trec/), and run notebook 03b (README: Your own TREC "
                 "data)."),
}
#: What the real data of a :data:`REAL_DATA` key holds that a reader of its numbers must know (the tests
#: that read the data check each statement: tests/test_fer17_real_gop.py).
DATA_QUIRKS = {
    "real_gop": ("Data quirk: the grid's twist_T09 file holds 302 negative Twist values, all on topic 495 (down to "
                 "−0.0056), and 2 NaN cells; Twist can be negative with three grades or a recall base over half the "
                 "depth (irscales.measures.twist), and the KDEs drop NaN cells as MATLAB's ksdensity does."),
}
_GRID = re.compile(r"GoP = all (?P<n>[\d,]+) systems")
_SUBSET = re.compile(r"the closest (?P<n>[\d,]+)-system subset \((?P<which>.+?) \([\d,]+\)\) gives (?P<value>-?\d+\.\d+)")


def grid_sentences(table: pd.DataFrame) -> list[str]:
    """Fer17 Table 1: on which Grid of Points it reproduces, derived from the notes of its cells computed on
    real data (the whole published grid, and the closest subset of the size §3.2 describes, with each cell's
    value there); [] when no such cell is in ``table``."""
    rows = table[table["item"].str.startswith("table1/") & (table["route"] == "real")]
    grid = [m for m in (_GRID.search(str(n)) for n in rows["note"]) if m]
    subsets = [(r.item, str(r.published), m) for r in rows.itertuples(index=False)
               if (m := _SUBSET.search(str(r.note)))]
    if not grid or not subsets:
        return []
    whole = sum(r.status == REPRODUCED["real"] for r in rows.itertuples(index=False))
    n_sub = subsets[0][2]["n"]
    on_sub = sum(agreement(p, float(m["value"])).reproduced for _, p, m in subsets)
    cells = "; ".join(f"{short_item(i)} {m['value']} ({m['which']}; printed {p})" for i, p, m in subsets)
    on_whole = "reproduces" if whole == len(rows) else "does not reproduce"
    but = "and not" if on_sub < len(subsets) else "and also"
    return [f"Fer17 Table 1 {on_whole} on the whole published Grid of Points — {grid[0]['n']} systems, 3-grams and "
            f"all three query forms included: {whole} of the {len(rows)} cells computed on real data round to the "
            f"printed values — {but} on the {n_sub}-system grid Fer17 §3.2 describes (no 3-grams, one query form, "
            f"which it does not name): on the closest such subset {on_sub} of {len(subsets)} cells do ({cells})."]


#: Fer17 Table 1 by track (§3.1): what is still missing once the authors' published Grid of Points
#: (T07–T10) is read; ``None``: nothing (T08's 129 runs are public too: notebook 03b).
_FER17_TABLE1_RUNS = {
    "T07": "the 103 original TREC-7 Ad hoc runs (only their per-topic AP, P@10 and RR are public; the authors' Grid "
           "of Points on T07 is read)",
    "T08": None,
    "T09": "the 104 original TREC-9 Web runs, which are not public (the authors' Grid of Points on T09 is read)",
    "T10": "the 97 original TREC 2001 Web runs (T10), which are not public (the authors' Grid of Points on T10 is "
           "read)",
    **dict.fromkeys(("T13", "T14", "T15"), "the Grid of Points on the GOV2 corpus (T13–T15), which the authors did not "
                                           "publish, and the original TREC Terabyte runs, which are not public"),
}
_PAPER_RUNS = {
    "fer17": "the Grid of Points on the GOV2 corpus (T13–T15) that RQ1–RQ3 use, which the authors did not publish "
             "(their published grid covers T07–T10)",
    "mm23": "the 110 TREC 2004 Robust runs (only 10 are public; the judgments of all 249 topics are)",
}


def missing_runs(paper: str, item: str) -> str | None:
    """The runs a TREC item needs that nobody can share, or ``None`` if they are public."""
    if paper == "fff21":
        found = sorted(set(re.findall(r"\bT(?:08|26|27)\b", item.replace("_", " "))))
        if not found:
            return "the TREC-8, 2017 and 2018 Common Core runs of §7 (T26 and T27 are not public)"
        needed = [_FFF21_RUNS[c] for c in found if _FFF21_RUNS[c]]
        return " and ".join(needed) if needed else None
    if paper == "fer17" and item.startswith("table1/"):
        track = item.split("/")[1]
        if track in _FER17_TABLE1_RUNS:
            return _FER17_TABLE1_RUNS[track]
    return _PAPER_RUNS.get(paper, "the TREC runs the paper used")


def status_counts(table: pd.DataFrame) -> dict[str, int]:
    """Number of items per status, for every status in :data:`STATUSES` order."""
    return {s: int((table["status"] == s).sum()) for s in STATUSES}


def summary_line(table: pd.DataFrame) -> str:
    """One line: items, reproduced by route, unresolved, differing, needing unavailable runs, not attempted."""
    c = status_counts(table)
    return (f"{len(table)} items: reproduced {c['reproduced exhaustively']} exhaustively, "
            f"{c['reproduced from printed inputs']} from printed inputs, {c['reproduced on real data']} on real data; "
            f"{_verb(c[AGREES_WITHIN_PRINTING], 'agree')} within printing; "
            f"{_verb(c[DEPENDS_ON_READING], 'depend')} on the reading; {c[UNRESOLVED]} unresolved (settings unknown); "
            f"{_verb(c['differs'], 'differ')} (errata); "
            f"{_verb(c['simulated only'], 'need')} runs nobody can share (simulated only); "
            f"{c['not attempted']} not attempted")


def _verb(n: int, verb: str) -> str:
    """``3 differ``, ``1 differs``."""
    return f"{n} {verb}{'s' if n == 1 else ''}"


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


def unit_sort(key: str) -> tuple[str, tuple[int, ...], str]:
    """Sort key of a unit: (kind, number as a tuple, sub-letter); unknown keys sort first by name."""
    m = _UNIT.match(key)
    return (m.group(1), tuple(map(int, m.group(2).split("."))), m.group(3)) if m else ("", (), key)


def unit_order(keys: list[str]) -> list[str]:
    """Units in the paper's order: the order in which the published file first names them, except
    that a unit named later than a unit of the same type with a larger number (an example added at
    the end of the file) moves in front of the first such unit: tables, figures, examples,
    footnotes and sections each keep their numbering."""
    out: list[str] = []
    for k in dict.fromkeys(keys):
        kind = unit_sort(k)
        later = [i for i, o in enumerate(out) if unit_sort(o)[0] == kind[0] and unit_sort(o) > kind]
        out.insert(later[0] if later else len(out), k)
    return out


def short_item(item: str) -> str:
    """An item's id without its unit (``table1/B/AP`` → ``B/AP``)."""
    return item.partition("/")[2] or item


def relative_difference(published_value: str, ours: str) -> float | None:
    """|ours − published| / |published| when both are numbers (percent signs kept on both sides),
    else ``None``; the size by which the differs view sorts."""
    a, b = exact(str(published_value)), exact(str(ours))
    if a is None or b is None:
        return None
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
        return "No erratum: everything recomputed agrees with the printed values, at their printing or their reading."
    parts = []
    for key, items in found:
        title = unit_title(key)
        name = link(key, title) if link else title
        more = f" and {len(items) - max_items} more" if len(items) > max_items else ""
        shown = ", ".join(escape(i) for i in items[:max_items]) + more
        parts.append(f"{name} ({shown})")
    n = sum(len(i) for _, i in found)
    return f"{n} item{'s differ' if n != 1 else ' differs'} — " + "; ".join(parts) + "."


def unresolved_sentence(table: pd.DataFrame) -> str:
    """One sentence counting the unresolved items ("" when there are none): neither errata nor readings."""
    n = status_counts(table)[UNRESOLVED]
    if not n:
        return ""
    return (f"Unresolved: {n} item{'s are' if n != 1 else ' is'} not reproduced and the paper's settings are unknown "
            f"(neither an erratum nor a reading; the values tried are in {'their notes' if n != 1 else 'its note'}).")


def not_errata_sentence(table: pd.DataFrame) -> str:
    """One sentence counting the disagreements that are no errata ("" when there are none)."""
    c = status_counts(table)
    a, r = c[AGREES_WITHIN_PRINTING], c[DEPENDS_ON_READING]
    if not a and not r:
        return ""
    parts = ([f"{a} agree{'s' if a == 1 else ''} within the paper's printing (truncated, a marked approximation, "
              f"a range that holds or a value read off a figure)"] if a else []) + \
            ([f"{r} depend{'s' if r == 1 else ''} on how the paper is read (truncated or rounded, or a convention it "
              f"leaves open)"] if r else [])
    return "Not errata: " + " and ".join(parts) + "."


def overall_line(tables: dict[str, pd.DataFrame]) -> tuple[int, str]:
    """(number of published items, "n status, …") over all papers."""
    total = pd.concat(tables.values()) if tables else pd.DataFrame(columns=["status"])
    counts = status_counts(total)
    return len(total), ", ".join(f"{counts[s]} {s}" for s in STATUSES)


#: What a figure's file name says it was computed on (the notebooks name every figure so), first match
#: wins: a real-data analogue is real data that is not the paper's, never counted as a reproduction; real data
#: beyond the papers is an analysis no paper ran (:mod:`irscales.papers.beyond_report`).
FIGURE_ROUTES = (("_analogue", "real-data analogue"), ("_beyond_real", "real data, beyond the papers"),
                 ("_real", "real data"), ("from_printed", "from printed inputs"), ("simulated", "simulated data"))


def figure_route(stem: str) -> str:
    """What a figure was computed on, from its file name (:data:`FIGURE_ROUTES`); "" when the name
    says nothing (an exhaustive computation needs no data)."""
    return next((route for part, route in FIGURE_ROUTES if part in stem), "")

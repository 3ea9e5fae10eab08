"""The companion report as one offline HTML page (``figures/report.html``), built by :func:`page`.

Read top to bottom, the page answers what a reader with the paper open beside it asks first:

1. **cards**: per paper, its items by status (route) and a generated sentence naming the errata,
   each linked to the section that holds the evidence, and a count of the disagreements that are
   no errata; below them, where the numbers computed on real runs come from (:func:`sources_html`);
2. **differs**: every differing item (an erratum) with its reason, sortable by paper and size of the
   difference; then the disagreements that are no errata (within the paper's printing, or depending
   on how it is read), each with the kind and why;
3. **simulated only**: collapsed (``<details>``), one line per paper naming the runs that are missing;
4. **one section per table, figure, example and section of each paper** in the paper's order, each
   with its own anchor (``#fff21-table2``): a one-line caption derived from the published file's
   location/context columns, where its real-data numbers come from, our figures beside the items
   (each captioned with what it was computed on), and tables as a grid in the paper's layout
   (:func:`table_grid`), each cell coloured by status with both values;
5. **real-data analogues** (:func:`analogue_html`, :mod:`irscales.papers.analogues`): after a paper's
   units, the same analysis on real data that is not the paper's, labelled so and shown beside the
   simulated run; listed on the landing screen, linked from the units it concerns, never counted.

One file, no network: inline CSS and a few lines of JS (sorting the differs table, counting decoded
images for the browser test). Figures are referenced by relative path (``fer17/fig4_….png``), so
the page must stay next to the per-paper figure folders under ``figures/``.
Each figure is shown at its natural size (150 dpi PNG, about 1:1 on screen), shrunk only to the page width,
which is the size :data:`irscales.figures.STYLE` and :func:`irscales.figures.fit_tick_labels` are tuned for.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from irscales._formatting import significant
from irscales.papers import analogues as analogues_, items
from irscales.papers.analogues import NEVER_COUNTED, Analogue, AnalogueTable
from irscales.papers.items import MEANING, PAPERS, STATUSES
from irscales.papers.report_assets import CARD_LABEL, STATUS_CLASS, SCRIPT as _SCRIPT, STYLE as _STYLE

__all__ = ["STATUS_CLASS", "CARD_LABEL", "Grid", "cell_position", "table_grid", "grid_html", "items_html", "caption",
           "figures_by_unit", "units", "anchor", "card_html", "differs_html", "not_errata_html", "sources_html",
           "simulated_html", "frame_html", "figure_html", "findings_tables_html", "analogue_html", "unit_html", "page"]

_esc = html.escape


@dataclass
class Grid:
    """A published table in its printed layout: row groups (``blocks``, "" when the table has
    none), their rows and the columns, each in the order the paper prints them; ``cells`` maps
    (block, row, column) to the item's report row. Items not placed in the grid (text about the
    table) are in ``loose``."""

    blocks: list[str] = field(default_factory=list)
    rows: dict[str, list[str]] = field(default_factory=dict)
    columns: list[str] = field(default_factory=list)
    cells: dict[tuple[str, str, str], dict] = field(default_factory=dict)
    loose: list[dict] = field(default_factory=list)


_TABLE_LOC = re.compile(r"^Table\s+\d+[a-z]?\s*(?:,\s*(.*))?$")


def _split_top(text: str) -> list[str]:
    """Split at commas outside brackets ("row M([1,0,0])<M([0,1,1]), column AP" → two parts)."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "([{" and 1 or (ch in ")]}" and -1 or 0)
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [p for p in [*parts, cur.strip()] if p]


def cell_position(location: str, item: str) -> tuple[str, str, str] | None:
    """(block, row, column) of a table item from its printed location, e.g.
    "Table 5, block P, row Sign Test, column T08_30 Sig" → ("P", "Sign Test", "T08_30 Sig");
    unlabelled parts fill a missing row first, then a missing column (last part), then a block
    ("Table 5, topic size 10, system size 10, row tauCorr" → block "topic size 10", column "system
    size 10"); a table without columns uses the item's last id part. ``None``: not a table cell."""
    m = _TABLE_LOC.match(location.strip())
    if not m or not m.group(1):
        return None
    named: dict[str, str] = {}
    free: list[str] = []
    for part in _split_top(m.group(1)):
        word, _, rest = part.partition(" ")
        if word in ("row", "column", "block") and rest and word not in named:
            named[word] = rest
        elif part:
            free.append(part)
    if "row" not in named and free:
        named["row"] = free.pop(0)
    if "column" not in named and free:
        named["column"] = free.pop()
    if "block" not in named and free:
        named["block"] = free.pop(0)
    if free:
        named["column"] = ", ".join([*free, named["column"]])
    if "row" not in named:
        return None
    return named.get("block", ""), named["row"], named.get("column", item.rsplit("/", 1)[-1])


def table_grid(rows: pd.DataFrame) -> Grid:
    """The :class:`Grid` of one table's report rows (``location`` gives each cell's place)."""
    g = Grid()
    for r in rows.to_dict("records"):
        pos = cell_position(r["location"], r["item"])
        if pos is None or pos in g.cells:
            g.loose.append(r)
            continue
        block, row, col = pos
        if block not in g.rows:
            g.blocks.append(block)
            g.rows[block] = []
        if row not in g.rows[block]:
            g.rows[block].append(row)
        if col not in g.columns:
            g.columns.append(col)
        g.cells[pos] = r
    return g


def _tip(r: dict) -> str:
    note = r["note"] if len(r["note"]) <= 400 else r["note"][:400] + "…"
    route = f" ({r['route']})" if r["route"] else ""
    ours = f"simulated: {r['ours']}" if r["route"] == "simulated" else f"ours: {r['ours'] or '—'}"
    return (f"{r['item']}\npaper: {r['published']}\n{ours}\n{r['status']}{route}"
            + (f"\n{note}" if note else ""))


def _value(v: str) -> str:
    """A reproduced value as printed in the page: floats to at most 6 significant digits (the tooltip
    and the comparison files keep the full value)."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return v
    return v if re.fullmatch(r"-?\d+", v.strip()) else significant(f)


def grid_html(g: Grid) -> str:
    """A :class:`Grid` as an HTML table: the paper's value in each cell, ours on a second line when
    it was computed, the cell coloured by status, everything in the tooltip."""
    if not g.cells:
        return ""
    head = "<tr><th></th>" + "".join(f"<th>{_esc(c)}</th>" for c in g.columns) + "</tr>"
    body = []
    for block in g.blocks:
        if block:
            body.append(f"<tr><th class='block' colspan='{len(g.columns) + 1}'>{_esc(block)}</th></tr>")
        for row in g.rows[block]:
            cells = []
            for col in g.columns:
                r = g.cells.get((block, row, col))
                if r is None:
                    cells.append("<td></td>")
                    continue
                # a value computed on simulated data is no reproduction: only in the tooltip
                direct = r["ours"] and r["route"] != "simulated"
                ours = f"<small>{_esc(_value(r['ours']))}</small>" if direct else ""
                cells.append(f"<td class='{STATUS_CLASS[r['status']]}' title='{_esc(_tip(r))}'>"
                             f"{_esc(r['published'])}{ours}</td>")
            body.append(f"<tr><th>{_esc(row)}</th>{''.join(cells)}</tr>")
    return f"<table class='grid'><thead>{head}</thead><tbody>{''.join(body)}</tbody></table>"


def items_html(rows: list[dict], cls: str = "items") -> str:
    """Item rows (item, printed, ours, status, reason) as a compact table."""
    if not rows:
        return ""
    out = ["<table class='%s'><tr><th>item</th><th>where</th><th>paper</th><th>ours</th><th>status</th>"
           "<th>reason / note</th></tr>" % cls]
    for r in rows:
        sim = "<i>simulated:</i> " if r["route"] == "simulated" and r["ours"] else ""
        out.append(f"<tr><td>{_esc(items.short_item(r['item']))}</td><td>{_esc(r['location'])}</td>"
                   f"<td>{_esc(r['published'])}</td><td>{sim}{_esc(_value(r['ours']))}</td>"
                   f"<td class='{STATUS_CLASS[r['status']]}'>{_esc(r['status'])}</td>"
                   f"<td class='note'>{_esc(r['note'])}</td></tr>")
    return "".join(out) + "</table>"


def caption(rows: pd.DataFrame, title: str) -> str:
    """One line saying what the unit is, from the published file: the context its items share
    (a table's caption as transcribed), else its distinct printed locations."""
    ctx = rows["context"].value_counts()
    if len(ctx) and ctx.iloc[0] * 2 >= len(rows) and len(ctx.index[0]) <= 200:
        return ctx.index[0]
    locs = list(dict.fromkeys(rows["location"]))
    line = "; ".join(locs[:4]) + (f"; … ({len(locs) - 4} more places)" if len(locs) > 4 else "")
    return f"{title}: {line}"


_FIG_FILE = re.compile(r"^(fig|table)(\d+)")


def figures_by_unit(paper: str, figures: Path, keys: list[str]) -> dict[str, list[Path]]:
    """The PNGs of ``figures/<paper>/`` by the unit they show: ``fig12_…`` → Figure 12 (or 12a …),
    ``table3_…`` → Table 3; a PNG whose unit has no published item gets a unit of its own; a PNG
    named after no table or figure goes to ``other``."""
    folder = figures / paper
    out: dict[str, list[Path]] = {}
    for png in sorted(folder.glob("*.png")) if folder.is_dir() else []:
        m = _FIG_FILE.match(png.stem)
        key = "other"
        if m:
            same = [k for k in keys if re.fullmatch(rf"{m.group(1)}{m.group(2)}[a-z]?", k)]
            key = same[0] if same else f"{m.group(1)}{m.group(2)}"
        out.setdefault(key, []).append(png)
    for pngs in out.values():
        pngs.sort(key=lambda f: [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", f.stem)])
    return out


def units(paper: str, table: pd.DataFrame, figures: Path) -> list[tuple[str, pd.DataFrame, list[Path]]]:
    """[(unit key, its report rows, its PNGs)] in the paper's order; ``other`` comes last.

    A unit known only from a figure file (Fer17 transcribes its tables, not its figures) goes after
    the last unit before it in numbering: a figure of the same type with a smaller number or a table
    with a number not larger (Figure 4 after Table 4) — a guess at the paper's layout, stated here
    because the published file cannot say where such a figure sits."""
    keys = items.unit_order([items.unit_key(i) for i in table["item"]])
    figs = figures_by_unit(paper, figures, keys)
    by_unit = {k: g for k, g in table.groupby(table["item"].map(items.unit_key), sort=False)}
    order = list(keys)
    other_type = {"fig": "table", "table": "fig"}
    for extra in sorted((k for k in figs if k not in by_unit and k != "other"), key=items.unit_sort):
        kind, num, _ = items.unit_sort(extra)
        before = [i for i, k in enumerate(order)
                  if (items.unit_sort(k)[0] == kind and items.unit_sort(k) < (kind, num, ""))
                  or (items.unit_sort(k)[0] == other_type[kind] and items.unit_sort(k)[1] <= num)]
        order.insert(before[-1] + 1 if before else len(order), extra)
    if "other" in figs:
        order.append("other")
    empty = table.iloc[0:0]
    return [(k, by_unit.get(k, empty), figs.get(k, [])) for k in order]


def anchor(paper: str, key: str) -> str:
    return f"{paper}-{re.sub(r'[^A-Za-z0-9.]+', '-', key)}"


def card_html(paper: str, table: pd.DataFrame) -> str:
    """One paper's card: its items by status (a bar and the numbers, the same as REPORT.md's
    summary line) and the generated errata sentence with links to the evidence."""
    counts = items.status_counts(table)
    n = len(table)
    bar = "".join(f"<span class='{STATUS_CLASS[s]}' style='width:{100 * counts[s] / n:.3f}%' "
                  f"title='{counts[s]} {_esc(s)}'></span>" for s in STATUSES if counts[s]) if n else ""
    rows = "".join(f"<tr><td><span class='key {STATUS_CLASS[s]}'></span>{_esc(CARD_LABEL[s])}</td>"
                   f"<td class='n' data-status='{_esc(s)}'>{counts[s]}</td></tr>" for s in STATUSES)
    name, _, rest = PAPERS[paper].partition(" — ")
    errata = items.errata_paragraph(table, link=lambda k, t: f"<a href='#{anchor(paper, k)}'>{_esc(t)}</a>",
                                     escape=_esc, max_items=2)
    not_errata, unresolved = items.not_errata_sentence(table), items.unresolved_sentence(table)
    return (f"<div class='card' data-paper='{paper}' data-items='{n}'><h3><a href='#{paper}'>{_esc(name)}</a></h3>"
            f"<div class='muted'>{_esc(rest)}</div><div class='bar'>{bar}</div>"
            f"<table><tr><td>items</td><td class='n' data-status='items'>{n}</td></tr>{rows}</table>"
            f"<p class='errata'>{errata}</p>"
            + (f"<p class='not-errata'>{_esc(not_errata)} <a href='#not-errata'>Why</a></p>" if not_errata else "")
            + (f"<p class='unresolved'>{_esc(unresolved)} <a href='#unresolved'>Which</a></p>" if unresolved else "")
            + "</div>")


def differs_html(tables: dict[str, pd.DataFrame]) -> str:
    """Every differing item with its reason; click a header to sort (by paper, by size)."""
    out = ["<table class='sortable' id='differs-table'><thead><tr><th>paper</th><th>item</th><th>paper's value</th>"
           "<th>ours</th><th>relative difference</th><th>route</th><th>reason</th></tr></thead><tbody>"]
    for p, t in tables.items():
        for r in t[t["status"] == "differs"].to_dict("records"):
            rel = items.relative_difference(r["published"], r["ours"])
            size = "—" if rel is None else f"{100 * rel:.3g}%"
            key = items.unit_key(r["item"])
            out.append(f"<tr><td>{p}</td><td><a href='#{anchor(p, key)}'>{_esc(items.unit_title(key))}</a> "
                       f"{_esc(items.short_item(r['item']))}</td><td>{_esc(r['published'])}</td>"
                       f"<td>{_esc(_value(r['ours']))}</td>"
                       f"<td data-v='{'NaN' if rel is None else repr(rel)}'>{size}</td>"
                       f"<td>{_esc(r['route'])}</td><td class='note'>{_esc(r['note'])}</td></tr>")
    return "".join(out) + "</tbody></table>"


def not_errata_html(tables: dict[str, pd.DataFrame], statuses=items.NOT_ERRATA, table_id="not-errata-table") -> str:
    """Every disagreement that is no erratum (within the paper's printing, or depending on the reading),
    with the kind and why in its note; ``statuses``: other statuses the same way (the unresolved items)."""
    out = [f"<table class='sortable' id='{table_id}'><thead><tr><th>paper</th><th>item</th><th>paper's value</th>"
           "<th>ours</th><th>status</th><th>route</th><th>why</th></tr></thead><tbody>"]
    for p, t in tables.items():
        for r in t[t["status"].isin(statuses)].to_dict("records"):
            key = items.unit_key(r["item"])
            out.append(f"<tr><td>{p}</td><td><a href='#{anchor(p, key)}'>{_esc(items.unit_title(key))}</a> "
                       f"{_esc(items.short_item(r['item']))}</td><td>{_esc(r['published'])}</td>"
                       f"<td>{_esc(_value(r['ours']))}</td><td class='{STATUS_CLASS[r['status']]}'>{_esc(r['status'])}</td>"
                       f"<td>{_esc(r['route'])}</td><td class='note'>{_esc(r['note'])}</td></tr>")
    return "".join(out) + "</tbody></table>"


def sources_html(sources, among=None) -> str:
    """Where the numbers computed on real runs come from (:class:`irscales.papers.report.RealSource`),
    one line each (counting only the items ``among`` those given, in a section); empty when none."""
    if not sources:
        return ""
    return ("<ul class='sources'>" + "".join(f"<li data-state='{_esc(s.state or '')}'>{_esc(s.sentence(among))}</li>"
                                             for s in sources) + "</ul>")


def simulated_html(paper: str, table: pd.DataFrame) -> str:
    """A paper's simulated-only items, collapsed: one line with the runs that are missing, then the
    count per table/figure with links."""
    sim = table[table["status"] == "simulated only"]
    if sim.empty:
        return ""
    needs = pd.Series([items.missing_runs(paper, i) or "" for i in sim["item"]]).value_counts()
    runs = [f"{r} ({k} items)" if len(needs) > 1 else r for r, k in needs.items() if r]
    per_unit = sim.groupby(sim["item"].map(items.unit_key), sort=False).size()
    links = ", ".join(f"<a href='#{anchor(paper, k)}'>{_esc(items.unit_title(k))}</a> ({per_unit[k]})"
                      for k in items.unit_order(list(per_unit.index)))
    return (f"<details><summary><b>{paper}</b>: {len(sim)} items simulated only — need "
            f"{_esc('; '.join(runs))}</summary><p>The analysis runs on simulated data, which never counts as a "
            f"reproduction. Items by table/figure: {links}</p></details>")


def frame_html(frame: pd.DataFrame, cls: str = "items") -> str:
    """A frame of display strings (an analogue's table) as an HTML table, without its index."""
    head = "".join(f"<th>{_esc(str(c))}</th>" for c in frame.columns)
    body = "".join("<tr>" + "".join(f"<td>{_esc(str(v))}</td>" for v in row) + "</tr>"
                   for row in frame.itertuples(index=False))
    return f"<table class='{cls}'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def figure_html(paper: str, png: Path, analogue: Analogue | None = None) -> str:
    """One figure, captioned with its file and what it was computed on
    (:func:`irscales.papers.items.figure_route`); an analogue figure carries the analogue's label
    and links to its section."""
    route = items.figure_route(png.stem)
    if route == "real-data analogue" and analogue is not None:
        cap = (f"{_esc(png.name)} — <a href='#{anchor(paper, 'analogue')}'>{_esc(analogue.label)}</a> "
               "(never counted)")
    else:
        cap = _esc(png.name) + (f" — {_esc(route)}" if route else "")
    src = f"{paper}/{_esc(png.name)}"
    return (f"<figure data-route='{_esc(route)}'><a href='{src}'><img src='{src}' alt='{_esc(png.stem)}'></a>"
            f"<figcaption>{cap}</figcaption></figure>")


def _routes_of(pngs: list[Path]) -> str:
    """What a unit's figures were computed on: "2 on real data, 6 on simulated data"."""
    counts = pd.Series([items.figure_route(f.stem) or "exact computation" for f in pngs]).value_counts(sort=False)
    return ", ".join(f"{n} {'on ' if r in ('real data', 'simulated data') else ''}{r}" for r, n in counts.items())


def unit_html(paper: str, key: str, rows: pd.DataFrame, pngs: list[Path], sources=(),
              analogue: Analogue | None = None) -> str:
    title = _title(key)
    head = f"<h3 id='{anchor(paper, key)}'>{_esc(title)}</h3>"
    if rows.empty:
        cap = ("figures without a table or figure number of the paper" if key == "other"
               else f"no published item transcribed for it; our figure{'s' if len(pngs) > 1 else ''} only")
        head += f"<p class='cap'>{_esc(cap)}" + (f" — {_esc(_routes_of(pngs))}" if pngs else "") + "</p>"
    else:
        c = items.status_counts(rows)
        head += (f"<p class='cap'>{_esc(caption(rows, title))}</p><p class='muted'>{len(rows)} items: "
                 + ", ".join(f"{c[s]} {_esc(s)}" for s in STATUSES if c[s]) + "</p>")
        head += sources_html([s for s in sources if set(s.items) & set(rows["item"])], among=list(rows["item"]))
        head += "".join(f"<p class='grid'>{_esc(g)}</p>" for g in items.grid_sentences(rows))
    covered = set(rows["item"]) & analogue.items if analogue is not None and not rows.empty else set()
    shown = analogue is not None and any(items.figure_route(f.stem) == "real-data analogue" for f in pngs)
    if covered or shown:
        what = (f"{len(covered)} item{'s' if len(covered) != 1 else ''} of it" if covered else "its figure")
        head += (f"<p class='analogue-link'>A <a href='#{anchor(paper, 'analogue')}'>real-data analogue</a> of {what} "
                 f"is shown apart — {_esc(analogue.label)}; never counted: the statuses here do not come from it.</p>")
    evidence = ""
    if not rows.empty:
        grid = table_grid(rows) if key.startswith("table") else Grid(loose=rows.to_dict("records"))
        evidence = grid_html(grid)
        loose = grid.loose
        shown_rows = [r for r in loose if r["status"] not in ("simulated only", "not attempted")]
        hidden = [r for r in loose if r["status"] in ("simulated only", "not attempted")]
        evidence += items_html(shown_rows)
        if hidden:
            evidence += (f"<details><summary>{len(hidden)} items simulated only or not attempted</summary>"
                         f"{items_html(hidden)}</details>")
        diffs = [r for r in grid.cells.values() if r["status"] == "differs"]
        if diffs:
            evidence += f"<p><b>Differing cells</b></p>{items_html(diffs)}"
        others = [r for r in grid.cells.values() if r["status"] in items.NOT_ERRATA]
        if others:
            evidence += f"<p><b>Cells that disagree without an erratum</b></p>{items_html(others)}"
        if (open_ := [r for r in grid.cells.values() if r["status"] == items.UNRESOLVED]):
            evidence += f"<p><b>Unresolved cells (the paper's settings are unknown)</b></p>{items_html(open_)}"
    figs = "".join(figure_html(paper, f, analogue) for f in pngs)
    return (f"<section class='u'>{head}<div class='unit'>"
            + (f"<div class='ev'>{evidence}</div>" if evidence else "")
            + (f"<div class='figs'>{figs}</div>" if figs else "") + "</div></section>")


def findings_tables_html(findings: tuple[str, ...], tables: tuple[AnalogueTable, ...]) -> list[str]:
    """Findings, then tables under title and sources (long ones collapsed): analogue and beyond sections."""
    out = ["<ul class='findings'>" + "".join(f"<li>{_esc(f)}</li>" for f in findings) + "</ul>"] if findings else []
    for t in tables:
        title = f"<b>{_esc(t.title)}</b> <span class='muted'>({_esc(', '.join(t.sources))})</span>"
        table = f"<div class='ev'>{frame_html(t.frame)}</div>"
        out.append(f"<details><summary>{title}</summary>{table}</details>" if t.collapsed else f"<p>{title}</p>{table}")
    return out


def analogue_html(a: Analogue) -> str:
    """A real-data analogue section: its label first, what was run, the findings, the tables (long
    ones collapsed) and each figure beside its simulated counterpart."""
    out = [f"<section class='analogue' id='{anchor(a.paper, 'analogue')}' data-paper='{a.paper}'>"
           f"<h3>{_esc(a.heading)}</h3><p class='label'><b>{_esc(a.label)}</b> — {_esc(NEVER_COUNTED)} "
           f"(notebook {_esc(a.notebook)}).</p><p>{_esc(a.what)}</p>"]
    out += findings_tables_html(a.findings, a.tables)
    out += [f"<div class='figs'>{figure_html(a.paper, sim) if sim else ''}{figure_html(a.paper, f, a)}</div>"
            for f, sim in a.figures]
    return "".join(out) + "</section>"


def _title(key: str) -> str:
    return items.unit_title(key) if key != "other" else "Further figures"


def _sources_block(tables: dict[str, pd.DataFrame]) -> str:
    srcs = [s for t in tables.values() for s in t.attrs.get("real_sources", [])]
    if not srcs:
        return ""
    grids = [g for t in tables.values() for g in items.grid_sentences(t)]
    return ("<div id='real-sources'><p><b>Where the numbers computed on real runs come from</b></p>"
            + sources_html(srcs) + "".join(f"<p class='grid'>{_esc(g)}</p>" for g in grids) + "</div>")


def _analogues_block(sections: dict[str, Analogue]) -> str:
    """The landing screen's list of the real-data analogue sections."""
    if not sections:
        return ""
    return ("<div id='analogues'><p><b>Real-data analogues</b> — real data that is not the paper's, shown beside the "
            "simulated run; never counted as reproductions</p><ul class='sources'>"
            + "".join(f"<li><a href='#{anchor(p, 'analogue')}'>{_esc(a.title)}</a> — {_esc(a.label)}</li>"
                      for p, a in sections.items()) + "</ul></div>")


def page(tables: dict[str, pd.DataFrame], figures: Path, sections: dict[str, Analogue] | None = None,
         beyond: list[tuple[str, str, str, str]] = ()) -> str:
    """The whole report page (see the module docstring); ``sections``: the real-data analogues (default
    :func:`irscales.papers.analogues.sections`); ``beyond``: (anchor, title, label, HTML) of each section
    beyond the papers (:mod:`irscales.papers.beyond_report`), listed on the landing screen, shown last."""
    figures = Path(figures)
    sections = analogues_.sections(tables, figures) if sections is None else sections
    n, overall = items.overall_line(tables)
    legend = "".join(f"<span class='{STATUS_CLASS[s]}' title='{_esc(MEANING[s])}'>{_esc(s)}</span>" for s in STATUSES)
    nav = ("<nav><a href='#cards'>papers</a><a href='#differs'>differs</a><a href='#not-errata'>no errata</a>"
           "<a href='#unresolved'>unresolved</a>"
           "<a href='#simulated'>simulated only</a>" + ("<a href='#analogues'>analogues</a>" if sections else "")
           + "".join(f"<a href='#{p}'>{p}</a>" for p in tables)
           + "".join(f"<a href='#{a}'>beyond</a>" for a, *_ in beyond) + "</nav>")
    meanings = "".join(f"<dt>{_esc(s)}</dt><dd>{_esc(MEANING[s])}</dd>" for s in STATUSES)
    body = [f"<h1>irscales — how much of each paper reproduces, and where it does not</h1>{nav}",
            f"<p id='summary'><b>{n} published items</b>: {_esc(overall)}</p><div class='legend'>{legend}</div>",
            "<section id='cards'><div class='cards'>", *(card_html(p, t) for p, t in tables.items()),
            "</div>", _sources_block(tables), _analogues_block(sections),
            *(f"<p id='beyond'><b>Beyond the papers</b>: <a href='#{a}'>{_esc(t)}</a> — {_esc(lab)}; no paper "
              "printed these numbers, never counted</p>" for a, t, lab, _ in beyond), "</section>",
            "<h2 id='differs'>Differs (errata)</h2><p class='muted'>Every item recomputed by a direct route "
            "(exhaustively, from printed inputs or on real data) whose printed value is wrong at its own precision "
            "under every reasonable reading, or inconsistent with the paper's own printed numbers under every setting "
            "it leaves open, with the evidence. Click a column header to sort; the relative difference is |ours − paper| / |paper| "
            "where both are numbers.</p>",
            differs_html(tables),
            "<h2 id='not-errata'>Disagreements that are no errata</h2><p class='muted'>Recomputed by a direct route "
            "and not rounding to the printed value, yet no erratum: the printing allows it (truncated instead of "
            "rounded where the same column, table or passage prints other values only truncation reproduces, within "
            "the tolerance of the word the text qualifies the number with, a range end that holds as stated, a value "
            "the text says it read off a figure within what the figure can show), it is right if the paper truncated "
            "and nothing in the same column, table or passage shows whether it did (both printings are given), or the "
            "paper leaves a convention open and another reading gives the printed value (each reading's value is "
            "given).</p>",
            not_errata_html(tables),
            "<h2 id='unresolved'>Unresolved</h2><p class='muted'>Recomputed by a direct route and not reproduced, but "
            f"the paper's settings are unknown: neither an erratum nor a reading (the note gives the values tried).</p>"
            f"{not_errata_html(tables, (items.UNRESOLVED,), 'unresolved-table')}",
            "<h2 id='simulated'>Simulated only</h2><p class='muted'>Items that need runs nobody can share; the "
            "notebooks run the analysis on simulated data so the code path is exercised, but that is no "
            "reproduction.</p>", *(simulated_html(p, t) for p, t in tables.items()),
            f"<dl id='statuses'>{meanings}</dl>"]
    for p, t in tables.items():
        us = units(p, t, figures)
        a = sections.get(p)
        toc = " · ".join([f"<a href='#{anchor(p, k)}'>{_esc(_title(k))}</a>" for k, _, _ in us]
                         + ([f"<a href='#{anchor(p, 'analogue')}'>Real-data analogue</a>"] if a else []))
        body.append(f"<h2 id='{p}'>{_esc(PAPERS[p])}</h2><p class='paper-summary'>{_esc(items.summary_line(t))}</p>"
                    f"<p class='toc'>{toc}</p>")
        body += [unit_html(p, k, rows, pngs, t.attrs.get("real_sources", []), a) for k, rows, pngs in us]
        if a is not None:
            body.append(analogue_html(a))
    body += [h for *_, h in beyond]
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>irscales report</title>"
            f"<meta name='viewport' content='width=device-width'><style>{_STYLE}</style>"
            f"<script>{_SCRIPT}</script></head><body>{''.join(body)}</body></html>\n")

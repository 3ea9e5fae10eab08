"""The report keeps every published row and labels it; built from files generated in the test."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pandas as pd
import pytest

from irscales.papers import published
from irscales.papers import report
from irscales.paths import published_dir, repo_root


def _write_pub(path: Path, rows):
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(published.COLUMNS)
        w.writerows(rows)


def _table(tmp_path, paper, pub_rows, files):
    """Write a published file and comparison files (name -> (values, kwargs of compare)); return
    item -> (status, route, note) from the report."""
    pub = tmp_path / "pub"
    pub.mkdir(exist_ok=True)
    _write_pub(pub / f"{paper}.csv", pub_rows)
    load = published.load(paper, pub / f"{paper}.csv")
    figs = tmp_path / "figs"
    for name, (values, kw) in files.items():
        published.compare(paper, values, published=load, **kw).save(figs / paper / f"{name}.csv")
    t = report.paper_table(paper, figs, pub).set_index("item")
    return {i: (r.status, r.route, r.note) for i, r in t.iterrows()}, figs, pub


def test_report_statuses_and_nothing_dropped(tmp_path):
    rows = [
        ["t1/a", "Table 1", "p. 3", "0.8588", "exhaustive", ""],
        ["t1/b", "Table 1", "p. 3", "12", "exhaustive", ""],
        ["t3/x", "Table 3", "p. 9", "0.51", "trec", ""],
        ["t2/y", "Table 2", "p. 7", "0.25", "exhaustive", "needs a figure we cannot read"],
        ["s3/p", "§3", "p. 8", "0.0499", "example", ""],
    ]
    got, figs, pub = _table(tmp_path, "mm23", rows, {"published_vs_reproduced": (
        {"t1/a": 0.85875, "t1/b": 13, "s3/p": 0.04985},
        {"notes": {"t1/b": "paper counts one more"}, "route": {"t1/a": "exhaustive", "t1/b": "exhaustive",
                                                                 "s3/p": "printed"}})})
    assert {i: s for i, (s, _, _) in got.items()} == {
        "t1/a": "reproduced exhaustively", "t1/b": "differs", "t3/x": "simulated only",
        "t2/y": "not attempted", "s3/p": "reproduced from printed inputs"}
    assert got["t1/b"][2] == "paper counts one more"          # the reason of a difference is shown
    assert "Robust" in got["t3/x"][2]                         # simulated only names the missing runs
    assert got["t2/y"][2] == "needs a figure we cannot read"  # not attempted says why
    md, page = report.build(figs, pub)
    text = md.read_text()
    assert "5 published items" in text and "paper counts one more" in text
    line = report.summary_line(report.paper_table("mm23", figs, pub))
    assert line == ("5 items: reproduced 1 exhaustively, 1 from printed inputs, 0 on real data; 0 agree within "
                    "printing; 0 depend on the reading; 0 unresolved (settings unknown); 1 differs (errata); 1 needs runs "
                    "nobody can share (simulated "
                    "only); 1 not attempted")
    assert f"**{report.PAPERS['mm23']}** — {line}" in text     # the one-line summary at the top
    html = page.read_text()
    assert "id='summary'" in html and line in html
    assert text.index(line) < text.index("| item |")


def test_real_data_that_disagrees_is_differs_and_never_hidden(tmp_path):
    rows = [["t3/x", "Table 3", "p. 9", "0.51", "trec", ""], ["t3/y", "Table 3", "p. 9", "0.40", "trec", ""]]
    got, _, _ = _table(tmp_path, "mm23", rows, {
        "published_vs_reproduced_simulated": ({"t3/x": 0.51, "t3/y": 0.40}, {"route": "simulated"}),
        "published_vs_reproduced_real": ({"t3/x": 0.47, "t3/y": 0.40}, {"route": "real", "notes": {
            "t3/x": "10 of 110 runs"}})})
    assert got["t3/x"] == ("differs", "real", "10 of 110 runs")
    assert got["t3/y"][:2] == ("reproduced on real data", "real")


def test_route_precedence_most_direct_evidence_wins(tmp_path):
    rows = [["a", "T", "p", "0.50", "trec", ""], ["b", "T", "p", "0.25", "trec", ""],
            ["c", "T", "p", "0.75", "trec", ""], ["d", "T", "p", "0.10", "example", ""]]
    got, _, _ = _table(tmp_path, "fer17", rows, {
        # simulated agreement on every item; it must lose to any direct evidence
        "published_vs_reproduced_simulated": ({"a": 0.5, "b": 0.25, "c": 0.75, "d": 0.1}, {"route": "simulated"}),
        "published_vs_reproduced_printed": ({"a": 0.49, "b": 0.25, "d": 0.1}, {"route": "printed"}),
        # two direct rows of equal directness that disagree: the disagreement is kept
        "published_vs_reproduced_real": ({"d": 0.2}, {"route": "real"}),
    })
    assert got["a"][:2] == ("differs", "printed")
    assert got["b"][:2] == ("reproduced from printed inputs", "printed")
    assert got["c"][:2] == ("simulated only", "simulated")  # a TREC item agreeing on simulated data
    assert "Grid of Points" in got["c"][2]
    assert got["d"][:2] == ("differs", "real")


def test_rows_without_a_route_are_inferred(tmp_path):
    """Comparison files written before the route column: file name and note decide."""
    rows = [["t2/a", "Table 2", "p. 9", "0.50", "trec", ""], ["t2/b", "Table 2", "p. 9", "0.25", "trec", ""],
            ["t2/c", "Table 2", "p. 9", "0.75", "trec", ""], ["t1/d", "Table 1", "p. 2", "3", "theory", ""]]
    pub = tmp_path / "pub"
    pub.mkdir()
    _write_pub(pub / "fer17.csv", rows)
    load = published.load("fer17", pub / "fer17.csv")
    figs = tmp_path / "figs"
    for name, values, notes in [
        ("published_vs_reproduced_simulated", {"t2/a": 0.5, "t2/b": 0.25}, {"t2/b": report.RECOMPUTED_PREFIX + " F"}),
        ("published_vs_reproduced", {"t2/c": 0.75, "t1/d": 3}, {}),
    ]:
        frame = published.compare("fer17", values, notes=notes, published=load).frame.drop(columns="route")
        (figs / "fer17").mkdir(parents=True, exist_ok=True)
        frame.to_csv(figs / "fer17" / f"{name}.csv", index=False)
    t = report.paper_table("fer17", figs, pub).set_index("item")
    assert t["route"].to_dict() == {"t2/a": "simulated", "t2/b": "printed", "t2/c": "simulated", "t1/d": "exhaustive"}
    assert t["status"].to_dict() == {"t2/a": "simulated only", "t2/b": "reproduced from printed inputs",
                                     "t2/c": "simulated only", "t1/d": "reproduced exhaustively"}


def test_trec_items_whose_runs_are_public_are_not_simulated_only():
    status, note = report.item_status("trec", None, "", "fff21", "table2/T08_10/AP")
    assert status == "not attempted" and "public" in note


def test_unknown_route_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="unknown route"):
        report.row_route({"item": "a", "route": "guessed"}, "published_vs_reproduced", "trec")


def test_compare_rejects_unknown_items(tmp_path):
    _write_pub(tmp_path / "x.csv", [["a", "T", "p", "1", "theory", ""]])
    with pytest.raises(KeyError, match="not in data/published"):
        published.compare("x", {"zzz": 1}, published=published.load("x", tmp_path / "x.csv"))


@pytest.mark.parametrize("bad, msg", [
    ("item,location\n", "expected columns"),
    ("item,location,context,value,kind,note\na,b,c,1,guess,\n", "kind must be one of"),
    ("item,location,context,value,kind,note\na,b,c,1,theory,\na,b,c,2,theory,\n", "duplicate item"),
])
def test_published_file_errors_name_the_line(tmp_path, bad, msg):
    p = tmp_path / "bad.csv"
    p.write_text(bad)
    with pytest.raises(published.PublishedFileError, match=msg):
        published.load("bad", p)


@pytest.mark.parametrize("pub, rep, ok", [
    ("0.8588", 0.858849, True), ("0.8588", 0.8590, False), ("24,576", 24576, True),
    ("1/2", 0.5, True), ("yes", "Yes", True), ("12", 12.4, True), ("12", 12.6, False),
    ("1.69e-05", 1.6949e-05, True), ("1.69e-05", 1.62e-05, False), ("3.64e-85", 3.648e-85, False),
    ("2.5E+03", 2549, True),
])
def test_reproduced_at_printed_precision(pub, rep, ok):
    from irscales.papers import printing

    assert printing.agreement(pub, rep).reproduced is ok


def test_repository_published_files_are_valid():
    root = repo_root()
    if root is None:
        pytest.skip("not a source checkout")
    files = sorted(f for f in published_dir().glob("*.csv")
                   if f.stem not in ("readings", "printing_groups"))  # both: test_published
    assert {f.stem for f in files} == set(report.PAPERS)
    for f in files:
        frame = published.load(f.stem, f)
        assert len(frame) > 0, f
        assert set(frame["kind"]) <= published.KINDS


def test_report_builds_from_stored_outputs(tmp_path):
    root = repo_root()
    if root is None or not any(published_dir().glob("*.csv")):
        pytest.skip("no published files in this checkout")
    import shutil

    for p in report.PAPERS:  # build from copies: a test must not rewrite the repository's figures/
        src = root / "figures" / p / "published_vs_reproduced.csv"
        if src.exists():
            (tmp_path / p).mkdir()
            shutil.copy(src, tmp_path / p / src.name)
    md, _ = report.build(tmp_path)
    total = sum(len(published.load(f.stem, f)) for f in published_dir().glob("*.csv") if f.stem in report.PAPERS)
    assert f"**{total} published items**" in md.read_text()
    tables = [report.paper_table(p, md.parent) for p in report.PAPERS if (published_dir() / f"{p}.csv").exists()]
    assert sum(len(t) for t in tables) == total
    assert all(pd.concat(tables)["status"].isin(report.STATUSES))
    assert all(f"**{report.PAPERS[p]}** — " in md.read_text() for p in report.PAPERS)


def _rows(items):
    """Report rows (as paper_table gives them) from (item, location, published, ours, route, status)."""
    return pd.DataFrame([{"item": i, "location": loc, "context": "ctx", "kind": "exhaustive", "published": pub,
                          "ours": ours, "route": route, "status": status, "note": f"why {i}"}
                         for i, loc, pub, ours, route, status in items], columns=report.COLUMNS)


def test_grid_keeps_the_printed_layout_blocks_rows_columns():
    from irscales.papers import report_html

    rows = _rows([
        ("table5/T08/P/Sign/Sig", "Table 5, block P, row Sign, column T08 Sig", "1", "1", "printed",
         "reproduced from printed inputs"),
        ("table5/T26/P/Sign/Sig", "Table 5, block P, row Sign, column T26 Sig", "2", "3", "printed", "differs"),
        ("table5/T08/P/t/Sig", "Table 5, block P, row t, column T08 Sig", "4", "", "", "not attempted"),
        ("table5/T08/RR/Sign/Sig", "Table 5, block RR, row Sign, column T08 Sig", "5", "5.2", "simulated",
         "simulated only"),
        ("table5/note", "text after Table 5", "yes", "yes", "exhaustive", "reproduced exhaustively"),
    ])
    g = report_html.table_grid(rows)
    assert g.blocks == ["P", "RR"]
    assert g.rows == {"P": ["Sign", "t"], "RR": ["Sign"]}
    assert g.columns == ["T08 Sig", "T26 Sig"]
    assert g.cells[("P", "Sign", "T26 Sig")]["ours"] == "3"
    assert [r["item"] for r in g.loose] == ["table5/note"]
    page = report_html.grid_html(g)
    assert page.count("<tr>") == 1 + 2 + 3  # header, two block rows, three table rows
    assert "class='st-diff'" in page and "why table5/T26/P/Sign/Sig" in page  # colour and reason in the tooltip
    assert "<small>3</small>" in page        # both values: the paper's and ours on a second line
    assert "<small>5.2</small>" not in page  # a simulated value is no reproduction: tooltip only
    assert "simulated: 5.2" in page


@pytest.mark.parametrize("location, item, pos", [
    ("Table 1, system A, column AP", "table1/A/AP", ("", "system A", "AP")),
    ("Table 5, topic size 10, system size 25, row tauCorr", "t", ("topic size 10", "tauCorr", "system size 25")),
    ("Table 1, row M([1,0,0])<M([0,1,1])", "table1/AP@3", ("", "M([1,0,0])<M([0,1,1])", "AP@3")),
    ("Table 2, row k=5, column non-sep.", "x", ("", "k=5", "non-sep.")),
    ("text after Table 3", "x", None),
    ("Table 3", "x", None),
])
def test_cell_position_from_printed_location(location, item, pos):
    from irscales.papers import report_html

    assert report_html.cell_position(location, item) == pos


def test_cards_count_like_the_summary_and_name_the_errata():
    from irscales.papers import report_html

    rows = _rows([
        ("table1/B/AP", "Table 1, system B, column AP", "0.5575", "0.5521", "printed", "differs"),
        ("table1/A/AP", "Table 1, system A, column AP", "0.5", "0.5", "printed", "reproduced from printed inputs"),
        ("ex2/x", "Example 2", "3", "3", "exhaustive", "reproduced exhaustively"),
        ("ex1/y", "Example 1", "1/2", "0.6", "exhaustive", "differs"),
        ("table3/T26/AP", "Table 3, row T26, column AP", "0.7", "", "simulated", "simulated only"),
    ])
    card = report_html.card_html("fff21", rows)
    got = dict(re.findall(r"data-status='([^']+)'>(\d+)<", card))
    assert got == {"items": "5", **{s: str(n) for s, n in report.status_counts(rows).items()}}
    assert got["differs"] == "2" and got["simulated only"] == "1"
    # errata in the order the published file names the units, each linked to its section
    assert report.errata(rows) == [("table1", ["B/AP"]), ("ex1", ["y"])]
    assert "2 items differ — <a href='#fff21-table1'>Table 1</a> (B/AP); <a href='#fff21-ex1'>Example 1</a> (y)" in card
    assert report.errata_paragraph(rows.iloc[1:3]).startswith("No erratum")


def test_units_follow_the_paper_and_every_unit_has_an_anchor(tmp_path):
    from irscales.papers import report_html

    assert report.unit_order(["ex3", "s3.2", "fig2", "table1", "ex5", "table3", "ex1", "table2", "s2"]) == \
        ["ex1", "ex3", "s2", "s3.2", "fig2", "table1", "ex5", "table2", "table3"]
    assert [report.unit_title(k) for k in ("table2", "fig8a", "s3.4.1", "ex12", "fn8")] == \
        ["Table 2", "Figure 8(a)", "§3.4.1", "Example 12", "Footnote 8"]
    rows = _rows([("fig2/x", "Figure 2", "1", "1", "exhaustive", "reproduced exhaustively"),
                  ("table1/A/B", "Table 1, row A, column B", "1", "1", "exhaustive", "reproduced exhaustively")])
    (tmp_path / "mm23").mkdir()
    for name in ("fig2_grid.png", "fig5_only_ours.png", "table1_view.png", "summary.png"):
        (tmp_path / "mm23" / name).write_bytes(b"")
    us = report_html.units("mm23", rows, tmp_path)
    assert [(k, [f.name for f in pngs]) for k, _, pngs in us] == [
        ("fig2", ["fig2_grid.png"]), ("table1", ["table1_view.png"]), ("fig5", ["fig5_only_ours.png"]),
        ("other", ["summary.png"])]  # a figure without items follows the last unit numbered before it
    page = report_html.page({"mm23": rows}, tmp_path)
    assert all(f"id='{report_html.anchor('mm23', k)}'" in page for k, _, _ in us)


def test_simulated_only_items_are_collapsed_with_the_missing_runs():
    from irscales.papers import report_html

    rows = _rows([("table3/k5/equal", "Table 3, row k=5, column equal", "1%", "0.9", "simulated", "simulated only"),
                  ("table3/k10/equal", "Table 3, row k=10, column equal", "2%", "", "", "simulated only"),
                  ("table2/k5/equal", "Table 2, row k=5, column equal", "3%", "3", "exhaustive",
                   "reproduced exhaustively")])
    block = report_html.simulated_html("mm23", rows)
    assert block.startswith("<details><summary>") and "<details open" not in block
    assert "2 items simulated only" in block and "Robust" in block  # which runs are missing
    assert "<a href='#mm23-table3'>Table 3</a> (2)" in block
    assert report_html.simulated_html("mm23", rows.iloc[2:]) == ""


def test_statuses_that_are_no_errata_are_counted_apart_and_never_errata(tmp_path):
    """A comparison file's own statuses become the report's: truncation (where the column shows it) and a
    marked approximation agree within the printing, an open reading depends on it, unknown settings leave
    an item unresolved (counted apart); only a value wrong at its precision is an erratum. Among equally
    direct rows the largest disagreement is kept."""
    rows = [["table1/a", "Table 1, row a, column x", "p", "0.96", "example", ""],
            ["s2/b", "§2", "'NS2S around 45%'", "45%", "example", ""],
            ["s2/c", "§2", "p", "yes", "theory", ""],
            ["table1/d", "Table 1, row d, column x", "p", "0.1665", "example", ""],
            ["s2/e", "§2", "p", "0.5", "example", ""],
            ["table1/f", "Table 1, row f, column x", "p", "0.94", "example", ""],
            ["s2/g", "§2", "p", "0.8043", "example", ""]]
    pub = tmp_path / "pub"
    pub.mkdir()
    _write_pub(pub / "fff21.csv", rows)
    (pub / "readings.csv").write_text("paper,item,reading,reason\nfff21,s2/c,open,the discount is never defined\n"
                                      "fff21,s2/g,unknown,a program's settings are not given\n")
    load = published.load("fff21", pub / "fff21.csv")
    labels = published.load_readings(pub / "readings.csv")
    groups = pd.DataFrame([{"paper": "fff21", "items": "table1/*", "group": "Table 1's column x"}])
    figs = tmp_path / "figs"
    published.compare("fff21", {"table1/a": 0.9661, "table1/d": 1 / 6, "table1/f": 0.9461, "s2/b": 44.13, "s2/e": 0.5},
                      published=load, route="printed", groups=groups).save(figs / "fff21" / "published_vs_reproduced.csv")
    published.compare("fff21", {"s2/c": "no", "s2/e": 0.41, "s2/g": 0.05}, published=load, labels=labels,
                      route="exhaustive", readings={"s2/c": {"JK": "no", "log2(i+1)": "yes"}}
                      ).save(figs / "fff21" / "published_vs_reproduced_other.csv")
    t = report.paper_table("fff21", figs, pub).set_index("item")
    assert t["status"].to_dict() == {"table1/a": "agrees within printing", "s2/b": "agrees within printing",
                                     "s2/c": "depends on reading", "table1/d": "differs", "s2/e": "differs",
                                     "table1/f": "agrees within printing", "s2/g": "unresolved"}
    assert t.loc["s2/e", "route"] == "exhaustive"  # 0.41 beside a match: the disagreement wins
    assert report.errata(t.reset_index()) == [("table1", ["d"]), ("s2", ["e"])]
    md, page = report.build(figs, pub)
    text, html = md.read_text(), page.read_text()
    assert "2 items differ — Table 1 (d); §2 (e)." in text
    assert "Not errata: 3 agree within the paper's printing" in text and "1 depends on how the paper is read" in text
    assert "## Disagreements that are no errata" in text and "log2(i+1): yes (agrees)" in text
    assert "id='not-errata-table'" in html and "data-status='agrees within printing'>3<" in html
    assert "Unresolved: 1 item is not reproduced" in text and "| fff21 | s2/g | 0.8043 | 0.05 |" in text
    assert "id='unresolved-table'" in html and "data-status='unresolved'>1<" in html and "st-unres" in html


def test_rows_written_before_the_new_statuses_still_count(tmp_path):
    rows = [["t1/a", "Table 1", "p", "0.96", "exhaustive", ""], ["t1/b", "Table 1", "p", "0.97", "exhaustive", ""]]
    pub = tmp_path / "pub"
    pub.mkdir()
    _write_pub(pub / "mm23.csv", rows)
    (tmp_path / "figs" / "mm23").mkdir(parents=True)
    pd.DataFrame([{"item": "t1/a", "published": "0.96", "reproduced": "0.9661", "match": False, "status": "differs",
                   "note": "", "route": "exhaustive"},
                  {"item": "t1/b", "published": "0.97", "reproduced": "0.9661", "match": True, "status": "match",
                   "note": "", "route": "exhaustive"}]).to_csv(tmp_path / "figs" / "mm23" / "published_vs_reproduced.csv")
    t = report.paper_table("mm23", tmp_path / "figs", pub).set_index("item")
    assert t["status"].to_dict() == {"t1/a": "differs", "t1/b": "reproduced exhaustively"}


def _git(path, *args):
    import subprocess

    subprocess.run(["git", "-C", str(path), *args], check=True, capture_output=True)


def test_real_data_items_say_whether_they_come_from_the_committed_table(tmp_path, monkeypatch):
    """A fresh clone keeps the T08 items from the committed table; the landing page and the section
    say which runs they were computed on and where to put them; a table written in this checkout
    makes its items say that they were recomputed."""
    import shutil

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    monkeypatch.setattr(report, "_found", lambda track: None)  # as on a fresh clone: the runs are not here
    rows = [["table2/T08_05/AP", "Table 2, row T08_05, column AP", "p", "0.8000", "trec", ""],
            ["table2/T08_05/P", "Table 2, row T08_05, column P", "p", "1.0000", "trec", ""]]
    pub = tmp_path / "pub"
    pub.mkdir()
    _write_pub(pub / "fff21.csv", rows)
    figs = tmp_path / "repo" / "figures"
    cmp = published.compare("fff21", {"table2/T08_05/AP": 0.8, "table2/T08_05/P": 1.0}, route="real",
                            published=published.load("fff21", pub / "fff21.csv"))
    target = figs / "fff21" / "published_vs_reproduced_T08.csv"
    cmp.save(target)
    _git(tmp_path / "repo", "init", "-q")
    _git(tmp_path / "repo", "-c", "user.email=t@t", "-c", "user.name=t", "add", ".")
    _git(tmp_path / "repo", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "tables")
    assert report.file_state(target) == "committed"
    t = report.paper_table("fff21", figs, pub)
    assert set(t["source"]) == {"committed table"} and not t["note"].str.contains("recomputed in this checkout").any()
    (src,) = t.attrs["real_sources"]
    sentence = src.sentence()
    assert sentence.startswith("2 items reproduced on real data come from the committed derived table "
                               "fff21/published_vs_reproduced_T08.csv, computed on the 129 TREC-8 Ad hoc runs")
    assert "which a fresh clone does not have" in sentence and "/T08/runs/ and the qrels file in" in sentence
    assert "under $" in sentence and "make reproduce" in sentence  # the two settings that point at the runs
    md, page = report.build(figs, pub)
    assert sentence in md.read_text() and "in this section come from the committed" in page.read_text()
    # recomputed in this checkout: the file differs from the committed one
    cmp.frame.assign(note="recomputed").to_csv(target, index=False)
    assert report.file_state(target) == "recomputed"
    t = report.paper_table("fff21", figs, pub)
    assert set(t["source"]) == {"recomputed here"}
    assert t["note"].str.startswith("recomputed in this checkout (published_vs_reproduced_T08.csv)").all()
    assert "were recomputed in this checkout" in t.attrs["real_sources"][0].sentence()
    assert report.file_state(tmp_path / "outside.csv") is None or report.file_state(tmp_path / "outside.csv") \
        == "recomputed"


# ------------------------------------------------------------------ real-data analogues and Fer17 Table 1 on real data


def _hand_built_runs():
    """Three runs over twelve topics at depth 10 (as tests/test_mm23_real_r04.py builds them)."""
    import numpy as np

    from irscales.data import Collection

    rng = np.random.default_rng(5)
    rel = (rng.random((3, 12, 10)) < 0.4).astype(np.int8)
    judg = np.column_stack([np.full(12, 30), rel.max(0).sum(-1) + 1])
    return Collection(rel=rel, judgments=judg, run_lengths=np.full((3, 12), 10), topics=tuple(map(str, range(12))),
                      systems=("a", "b", "c"), provenance="trec: hand-built")


_MM23_ROWS = [[f"fig6/{k}", "Figure 6 caption", "§3", v, "trec", ""] for k, v in zip(
    ("group1_nonsep_via_ns", "group2_ns", "group3_equal", "group4_ni", "group5_nonsep_via_ni"),
    ("20", "81", "23", "109", "16"))] + [
    ["table3/k5/equal", "Table 3, row k=5, column equal", "§3", "20.40%", "trec", ""],
    ["table3/k5/separable", "Table 3, row k=5, column separable", "§3", "74.49%", "trec", ""],
    ["table2/k5/equal", "Table 2, row k=5, column equal", "§3", "1", "exhaustive", ""]]
_FER17_ROWS = [
    ["table1/T07/AP", "Table 1, row T07 vs T07gop, column AP", "§3.4", "0.0330", "trec", ""],
    ["table1/T07/P@10", "Table 1, row T07 vs T07gop, column P@10", "§3.4", "0.0141", "trec", ""],
    ["table1/T07/R-prec", "Table 1, row T07 vs T07gop, column R-prec", "§3.4", "0.0304", "trec", ""],
    ["table1/T08/AP", "Table 1, row T08 vs T08gop, column AP", "§3.4", "0.0335", "trec", ""],
    ["table1/T09/AP", "Table 1, row T09 vs T09gop, column AP", "§3.4", "0.0227", "trec", ""],
    ["table2/Topic Size/effect_class", "Table 2, row Topic Size, column effect", "§4", "large", "trec", ""],
    ["s4.2.2/topic_size_omega2_gt_system_size", "§4.2.2", "§4.2.2", "yes", "trec", ""]]


def _analogue_case(tmp_path, analogues: bool = True, match: bool = False):
    """Published files and the notebooks' outputs for a small Fer17 and MM23, generated here with the
    library's own writers: notebook 03's and 05's simulated comparisons, 03b's Table 1 on real data
    and, with ``analogues``, the analogue files of notebooks 03b and 05b and their figures. ``match``:
    one pair of the runs has the printed Fig. 6 sizes. Returns (figures folder, published folder)."""
    import types

    from irscales.papers.fer17 import analogue as fer17_analogue
    from irscales.papers.mm23 import part_b, real_r04
    from irscales.papers.mm23.conventions import GROUPS

    col = _hand_built_runs()
    rows = _MM23_ROWS
    if match:  # print the sizes the closest pair has, as if the paper had used it
        first = real_r04.fig6_pair_search(col, (0,) * len(GROUPS)).iloc[0]
        rows = [r[:3] + [str(int(first[g]))] + r[4:] for r, g in zip(rows, GROUPS)] + rows[len(GROUPS):]
    pub = tmp_path / "pub"
    pub.mkdir(parents=True, exist_ok=True)
    _write_pub(pub / "mm23.csv", rows)
    _write_pub(pub / "fer17.csv", _FER17_ROWS)
    mm, fe = published.load("mm23", pub / "mm23.csv"), published.load("fer17", pub / "fer17.csv")
    figs = tmp_path / "figs"
    # notebook 05 on its simulated stand-in: trec items keep their simulated value in the note only
    simulated = {"fig6/group1_nonsep_via_ns": 13, "table3/k5/equal": 27.65, "table3/k5/separable": 70.72}
    keep, notes = part_b.split_simulated(types.SimpleNamespace(is_simulated=True), simulated, mm)
    published.compare("mm23", {**keep, "table2/k5/equal": 1}, notes=notes, published=mm, route="exhaustive"
                      ).save(figs / "mm23" / "published_vs_reproduced.csv")
    # notebook 03 on simulated data, 03b's Table 1 on the authors' grid (route real)
    published.compare("fer17", {"table1/T07/AP": 0.02, "table1/T08/AP": 0.0335, "table1/T09/AP": 0.0227},
                      published=fe, route="simulated").save(figs / "fer17" / "published_vs_reproduced_simulated.csv")
    published.compare("fer17", {"table2/Topic Size/effect_class": "large", "s4.2.2/topic_size_omega2_gt_system_size":
                                "yes"}, published=fe, route="printed"
                      ).save(figs / "fer17" / "published_vs_reproduced_printed.csv")
    published.compare("fer17", {"table1/T07/AP": 0.033006, "table1/T07/P@10": 0.014088, "table1/T08/AP": 0.033481},
                      published=fe, route="real").save(figs / "fer17" / "published_vs_reproduced_real_gop.csv")
    for name in ("fig1_kde_T08_AP_real_gop", "fig1_kde_T08_AP_simulated", "fig4_main_effects_tau_simulated",
                 "fig6_pair_topics_k10_simulated_r04"):
        (figs / ("mm23" if "r04" in name else "fer17") / f"{name}.png").write_bytes(b"")
    if not analogues:
        return figs, pub
    for name in ("fer17/fig4_main_effects_tau_real_gop_analogue", "mm23/fig6_pair_topics_k10_real_r04_249_analogue"):
        (figs / f"{name}.png").write_bytes(b"")
    # notebook 03b: the qualitative findings of each design (qualitative_frame of the analogue module)
    designs = {"simulated": types.SimpleNamespace(qualitative=lambda: {
                   "table2/Topic Size/effect_class": "large", "s4.2.2/topic_size_omega2_gt_system_size": "no"}),
               "real, 8 measures": types.SimpleNamespace(qualitative=lambda: {
                   "table2/Topic Size/effect_class": "medium", "s4.2.2/topic_size_omega2_gt_system_size": "yes"})}
    fer17_analogue.qualitative_frame(fe, designs).to_csv(figs / "fer17" / "analogue_real_gop_T07-T10_qualitative.csv")
    cols = pd.MultiIndex.from_product([["paper", "simulated", "real, 8 measures"], ["tau", "tau_ap"]])
    pd.DataFrame([[0.7, 0.6, 0.9, 0.8, 0.6, 0.5], [0.8, 0.7, float("nan"), float("nan"), 0.7, 0.6]],
                 index=["AP vs P@10", "AP vs Twist"], columns=cols).to_csv(
        figs / "fer17" / "analogue_real_gop_T07-T10_table4.csv")
    # notebook 05b on "the public runs": the pair search, Table 3, Fig. 7 and the items
    real_r04.fig6_pair_search(col, real_r04.printed_fig6_sizes(mm)).to_csv(
        figs / "mm23" / "fig6_pairs_real_r04_249_analogue.csv", index=False)
    t3 = {"k": [5], "equal %": [22.579206], "separable %": [71.905399], "non-sep. %": [5.515395], "SERP pairs": [36],
          "paper equal": ["20.40%"], "paper separable": ["74.49%"], "paper nonsep": ["5.12%"]}
    pd.DataFrame(t3).to_csv(figs / "mm23" / "table3_real_r04_249_analogue.csv", index=False)
    pd.DataFrame({**t3, "equal %": [27.653603], "SERP pairs": [108315]}).to_csv(
        figs / "mm23" / "table3_simulated_r04.csv", index=False)
    for tag, both in (("real_r04_249_analogue", (0.4, 0.2)), ("simulated_r04", (0.5, 0.45))):
        pd.DataFrame({"metric": "AP", "depth": 10, "test": "t", "category": ["Both: Yes", "Both: No", "Metric: Yes"],
                      "pairs": [1, 1, 1], "fraction": [*both, 0.1]}).to_csv(
            figs / "mm23" / f"fig7_agreement_{tag}.csv", index=False)
    real_r04.analogue_table(mm, {"table3/k5/equal": 22.579206, "fig6/group1_nonsep_via_ns": 19}).to_csv(
        figs / "mm23" / "items_real_r04_249_analogue.csv", index=False)
    return figs, pub


def _frames(figs, pub):
    return {p: report.paper_table(p, figs, pub) for p in ("fer17", "mm23")}


def test_analogue_sections_are_labelled_beside_the_simulated_run_and_never_counted(tmp_path, monkeypatch):
    from irscales.papers import analogues, report_html
    from irscales.papers.fer17.real_gop import ANALOGUE_LABEL as FER17
    from irscales.papers.mm23.real_r04 import ANALOGUE_LABEL as MM23

    monkeypatch.setattr(report, "_found", lambda key: None)
    assert FER17 == "real-data analogue: real GoP on T07–T10, not the paper's GOV2 grid"
    assert MM23 == "real-data analogue: 10 public Robust 2004 runs over 249 topics, not the paper's 110 runs"
    bare_figs, bare_pub = _analogue_case(tmp_path / "bare", analogues=False)
    figs, pub = _analogue_case(tmp_path / "with")
    bare, withs = _frames(bare_figs, bare_pub), _frames(figs, pub)
    assert analogues.sections(bare, bare_figs) == {}
    # not counted: every item's status, route and value is the same with and without the analogue files
    for p in bare:
        cols = ["item", "ours", "route", "status"]
        pd.testing.assert_frame_equal(bare[p][cols], withs[p][cols])
        assert report.summary_line(bare[p]) == report.summary_line(withs[p])
        assert report_html.card_html(p, bare[p]) == report_html.card_html(p, withs[p])
    assert (withs["mm23"]["status"] == "reproduced on real data").sum() == 0
    assert not withs["mm23"]["ours"].isin(["22.58", "22.5792", "19"]).any()  # analogue values never in "ours"
    sections = analogues.sections(withs, figs)
    assert [(p, a.label) for p, a in sections.items()] == [("fer17", FER17), ("mm23", MM23)]
    mm = sections["mm23"]
    # the Fig. 6 search over every ordered pair against the printed sizes: no pair, and the closest named
    (fig6,) = [f for f in mm.findings if f.startswith("MM23 Fig. 6")]
    assert "no pair of the 3 runs has the printed group sizes (20, 81, 23, 109, 16)" in fig6
    assert "all 6 ordered pairs were checked" in fig6 and "The closest, " in fig6
    assert "not reproduced on real data" in fig6
    # beside the simulated run: Table 3, Fig. 7 and the items carry both columns
    t3 = next(t for t in mm.tables if t.title.startswith("Table 3")).frame.iloc[0]
    assert (t3["paper equal"], t3["simulated equal"], t3["real equal"]) == ("20.40%", "27.65%", "22.58%")
    it = next(t for t in mm.tables if t.title.startswith("Every Part-B item")).frame.set_index("item")
    row = it.loc["table3/k5/equal"]
    assert list(row[["paper", "simulated", "real-data analogue"]]) == ["20.40%", "27.65", "22.5792"]
    assert it.loc["table3/k5/equal", "status in this report"] == "simulated only"
    assert any("the smallest agreement is simulated 0.950, real 0.600" in f for f in mm.findings)
    assert [(f.name, s.name) for f, s in mm.figures] == [("fig6_pair_topics_k10_real_r04_249_analogue.png",
                                                          "fig6_pair_topics_k10_simulated_r04.png")]
    fe = sections["fer17"]
    q = fe.tables[0].frame.set_index("item")
    assert list(q.loc["table2/Topic Size/effect_class"]) == ["large", "large ✓", "medium ✗",
                                                             "reproduced from printed inputs"]
    assert any("Of the paper's 2 qualitative findings" in f and "simulated 1, real, 8 measures 1 hold" in f
               for f in fe.findings)
    t4 = fe.tables[1].frame.set_index("measure pair")
    assert t4.loc["AP vs Twist", "simulated τ"] == "—"  # no Twist on simulated runs
    assert any("mean τ / τ_AP over the 1 measure pairs" in f and "simulated 0.900 / 0.800" in f for f in fe.findings)
    # laid out: labelled sections in both forms, listed on the landing screen, linked from the units
    md, page = report.build(figs, pub)
    text, html = md.read_text(), page.read_text()
    for a in sections.values():
        assert f"### {a.heading}" in text and f"**{a.label}** — {analogues.NEVER_COUNTED}" in text
        assert f"id='{a.paper}-analogue'" in html and f"<b>{report_html._esc(a.label)}</b>" in html
        assert f"<li><a href='#{a.paper}-analogue'>{a.title}</a>" in html
    assert text.count("never counted as a reproduction: no item's status in this report comes from it") == 2
    assert "- mm23/fig6_pair_topics_k10_real_r04_249_analogue.png beside mm23/fig6_pair_topics_k10_simulated_r04.png" \
        in text
    assert "<a href='#analogues'>analogues</a>" in html and "id='analogues'" in html
    assert html.count("class='analogue-link'") == 5  # MM23 Table 3, Figure 6; Fer17 Table 2, §4.2.2, Figure 4
    assert "data-route='real-data analogue'" in html and "data-route='simulated data'" in html
    assert "no pair of the 3 runs has the printed group sizes" in text and "no pair of the 3 runs" in html
    bare_md, _ = report.build(bare_figs, bare_pub)
    assert "real-data analogue" not in bare_md.read_text().split("## Differing items")[0]


@pytest.mark.data
def test_a_pair_with_the_printed_fig6_sizes_is_named_and_changes_no_status(tmp_path):
    from irscales.papers import analogues

    figs, pub = _analogue_case(tmp_path, match=True)
    tables = _frames(figs, pub)
    (fig6,) = [f for f in analogues.sections(tables, figs)["mm23"].findings if f.startswith("MM23 Fig. 6")]
    assert "(A) vs " in fig6 and "exactly the printed group sizes" in fig6 and "no pair" not in fig6
    t = tables["mm23"].set_index("item")
    assert set(t.loc[[i for i in t.index if i.startswith("fig6/")], "status"]) == {"simulated only"}


def test_simulated_counterpart_and_simulated_value_of_an_analogue(tmp_path):
    from irscales.papers import analogues
    from irscales.papers.mm23.part_b import analogue_in_note

    for name in ("fig4_main_effects_tau_simulated", "fig4_main_effects_tau_ap_simulated",
                 "fig7_agreement_simulated_r04", "fig4_main_effects_tau_real_gop_analogue",
                 "fig7_agreement_real_r04_249_analogue", "fig9_x_real_gop_analogue"):
        (tmp_path / f"{name}.png").write_bytes(b"")
    assert analogues.counterpart(tmp_path / "fig4_main_effects_tau_real_gop_analogue.png").name == \
        "fig4_main_effects_tau_simulated.png"  # not the τ_AP figure, whose name merely starts alike
    assert analogues.counterpart(tmp_path / "fig7_agreement_real_r04_249_analogue.png").name == \
        "fig7_agreement_simulated_r04.png"
    assert analogues.counterpart(tmp_path / "fig9_x_real_gop_analogue.png") is None
    assert analogue_in_note("needs the Robust 2004 runs; simulated analogue: 27.65") == "27.65"
    assert analogue_in_note("needs runs; simulated analogue: yes") == "yes"
    assert analogue_in_note("recomputed from the printed setup") == "" and analogue_in_note("") == ""


@pytest.mark.data
def test_fer17_table1_cells_on_route_real_data_and_fig1_panels(tmp_path, monkeypatch):
    """Notebook 03b's comparison file (route real) beats notebook 03's simulated one; the source
    sentence names the authors' grid and how to recompute; the other rows say what is still missing;
    Fig. 1's real panels are captioned real data."""
    from irscales.papers import report_html

    monkeypatch.setattr(report, "_found", lambda key: None)
    figs, pub = _analogue_case(tmp_path, analogues=False)
    t = report.paper_table("fer17", figs, pub).set_index("item")
    real = ["table1/T07/AP", "table1/T07/P@10", "table1/T08/AP"]
    assert set(t.loc[real, "status"]) == {"reproduced on real data"} and set(t.loc[real, "route"]) == {"real"}
    assert t.loc["table1/T07/AP", "ours"] == "0.033006"  # the real value, not notebook 03's simulated 0.02
    assert t.loc["table1/T07/R-prec", "status"] == "simulated only"
    assert "103 original TREC-7 Ad hoc runs" in t.loc["table1/T07/R-prec", "note"]
    assert "original TREC-9 Web runs" in t.loc["table1/T09/AP", "note"]
    (src,) = report.paper_table("fer17", figs, pub).attrs["real_sources"]
    sentence = src.sentence()
    assert sentence.startswith("3 items reproduced on real data come from the derived table "
                               "fer17/published_vs_reproduced_real_gop.csv, computed on the authors' published Grid of "
                               "Points on T07 and T08")
    assert "which a fresh clone does not have" in sentence and "IRSCALES_GOP" in sentence and "notebook 03b" in sentence
    md, page = report.build(figs, pub)
    text, html = md.read_text(), page.read_text()
    assert "| table1/T08/AP | Table 1, row T08 vs T08gop, column AP | 0.0335 | 0.033481 | real (derived table) | " \
           "reproduced on real data |" in text
    assert "*fig1_kde_T08_AP_real_gop.png — real data*" in text
    assert "*fig1_kde_T08_AP_simulated.png — simulated data*" in text
    assert "1 on real data, 1 on simulated data" in html
    assert "fig1_kde_T08_AP_real_gop.png — real data</figcaption>" in html
    cell = re.search(r"<td class='(st-\w+)' title='table1/T08/AP", html)
    assert cell and cell.group(1) == report_html.STATUS_CLASS["reproduced on real data"]


@pytest.mark.data
def test_committed_outputs_table1_on_real_data_and_analogues_apart(committed_figures_report):
    """The repository's committed outputs: Fer17 Table 1's T07 (AP, P@10) and T08 (eight columns) on
    route real, nothing else of Fer17 or MM23 counted on real data, both analogue sections present,
    and the REPORT.md they build shows them."""
    from irscales.papers import analogues

    figs = committed_figures_report
    if not (figs / "fer17" / "published_vs_reproduced_real_gop.csv").exists():
        pytest.skip("the committed figures hold no Fer17 table on real data")
    tables = {p: report.paper_table(p, figs) for p in ("fer17", "mm23")}
    fer = tables["fer17"].set_index("item")
    cells = [f"table1/T07/{m}" for m in ("AP", "P@10")] + [
        f"table1/T08/{m}" for m in ("AP", "P@10", "R-prec", "RBP", "nDCG", "nDCG@20", "ERR", "Twist")]
    assert set(fer.loc[cells, "route"]) == {"real"}
    assert set(fer.index[fer["route"] == "real"]) == set(cells)
    assert set(fer.loc[cells, "status"]) <= {"reproduced on real data", *report.NOT_ERRATA, "differs"}
    assert (tables["mm23"]["route"] == "real").sum() == 0
    sections = analogues.sections(tables, figs)
    assert set(sections) == {"fer17", "mm23"}
    assert any(f.startswith("MM23 Fig. 6: no pair of the 10 runs has the printed group sizes (20, 81, 23, 109, 16)")
               for f in sections["mm23"].findings)
    assert all(sim is not None for a in sections.values() for _, sim in a.figures)  # each beside its simulated run
    text = (figs / "REPORT.md").read_text()
    assert all(f"### {a.heading}" in text and a.label in text for a in sections.values())


def _figures_copy(dest: Path) -> Path:
    """The repository's figures (what the report reads), copied: a test must not rewrite figures/."""
    import shutil

    root = repo_root()
    if root is None or not (root / "figures" / "REPORT.md").exists():
        pytest.skip("not a source checkout with the committed figures")
    shutil.copytree(root / "figures", dest, ignore=shutil.ignore_patterns("executed", "public"))
    return dest


def _shuffle_rows(path: Path, rng) -> None:
    """The data rows of a CSV file in another order (comment lines and the one- or two-line header kept)."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    i = 0
    while i < len(lines) and lines[i].startswith("#"):
        i += 1
    two = i + 1 < len(lines) and lines[i].startswith(",") and lines[i + 1].startswith(",")  # header=[0, 1]
    head = i + (2 if two else 1)
    body = lines[head:]
    rng.shuffle(body)
    path.write_text("".join(lines[:head] + body), encoding="utf-8")


@pytest.mark.data
def test_the_report_does_not_depend_on_the_row_order_of_its_inputs(tmp_path):
    """Issue 43: every table the report writes is in a total order (value, then the row's labels), so the
    same numbers in another row order give the same bytes — the ranked tables with ties included."""
    import random

    a, b = _figures_copy(tmp_path / "a"), _figures_copy(tmp_path / "b")
    rng = random.Random(43)
    shuffled = sorted(b.rglob("*.csv"))
    for f in shuffled:
        _shuffle_rows(f, rng)
    assert any(f.read_bytes() != (a / f.relative_to(b)).read_bytes() for f in shuffled)
    for d in (a, b):
        report.build(d)
    for name in ("REPORT.md", "report.html"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


@pytest.mark.data
def test_the_committed_report_is_what_the_committed_figures_build(tmp_path, monkeypatch):
    """Issue 43: `make reproduce` on a fresh clone leaves the committed files as they were — the committed
    REPORT.md and report.html are exactly what the committed figures build (in a copy held in git, so that
    committed derived tables are named as such)."""
    import subprocess

    root = repo_root()
    if root is None or not (root / ".git").exists():
        pytest.skip("not a git checkout")
    dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "figures"], capture_output=True,
                           text=True).stdout.strip()
    if dirty:
        pytest.skip("figures/ has changes in this checkout (recomputed here): rebuild and commit the report first")
    for var in ("IRSCALES_SHARED", "IRSCALES_TREC", "IRSCALES_GOP", "IRSCALES_SCORES", "IRSCALES_COLLECTIONS"):
        monkeypatch.delenv(var, raising=False)  # as on a fresh clone: the committed report is built there
    figs = _figures_copy(tmp_path / "figures")
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "figures"]):
        subprocess.run(git + args, check=True, capture_output=True)
    report.build(figs)
    for name in ("REPORT.md", "report.html"):
        assert (figs / name).read_bytes() == (root / "figures" / name).read_bytes(), \
            f"figures/{name} is not what the committed figures build: run make report and commit it"


def test_the_landing_page_says_on_which_grid_fer17_table1_reproduces(committed_figures_report):
    """The report the committed figures build: the landing block and the Table 1 section name the 4,284-system
    grid, the 1,326-system grid the paper describes, and the twist_T09 quirk."""
    html = (committed_figures_report / "report.html").read_text(encoding="utf-8")
    landing = html[html.index("id='real-sources'"):html.index("id='differs'")]
    section = html[html.index("id='fer17-table1'"):]
    section = section[:section.index("</section>")]
    for part in (landing, section):
        assert "whole published Grid of Points — 4,284 systems" in part and "not on the 1,326-system grid" in part
        assert "twist_T09" in part

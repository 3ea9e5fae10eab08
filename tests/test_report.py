"""The report keeps every published row and labels it; built from files generated in the test."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
import pytest

from irscales import published, report
from irscales.paths import published_dir, repo_root


def _write_pub(path: Path, rows):
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(published.COLUMNS)
        w.writerows(rows)


def test_report_statuses_and_nothing_dropped(tmp_path):
    pub = tmp_path / "pub"
    pub.mkdir()
    _write_pub(pub / "mm23.csv", [
        ["t1/a", "Table 1", "p. 3", "0.8588", "exhaustive", ""],
        ["t1/b", "Table 1", "p. 3", "12", "exhaustive", ""],
        ["t3/x", "Table 3", "p. 9", "0.51", "trec", ""],
        ["t2/y", "Table 2", "p. 7", "0.25", "exhaustive", ""],
    ])
    figs = tmp_path / "figs"
    comp = published.compare("mm23", {"t1/a": 0.85875, "t1/b": 13, "t3/x": 0.47},
                             notes={"t1/b": "paper counts one more"}, published=published.load("mm23", pub / "mm23.csv"))
    comp.save(figs / "mm23" / "published_vs_reproduced.csv")
    md, page = report.build(figs, pub)
    t = report.paper_table("mm23", figs, pub)
    assert t.set_index("item")["status"].to_dict() == {
        "t1/a": "reproduced", "t1/b": "differs", "t3/x": "simulated only", "t2/y": "not attempted"}
    text = md.read_text()
    assert "4 published items" in text and "paper counts one more" in text
    assert "id='summary'" in page.read_text()


def test_simulated_comparisons_never_count_as_reproduced_trec_items(tmp_path):
    pub = tmp_path / "pub"
    pub.mkdir()
    _write_pub(pub / "fer17.csv", [
        ["t2/a", "Table 2", "p. 9", "0.50", "trec", ""],
        ["t2/b", "Table 2", "p. 9", "0.25", "trec", ""],
        ["t2/c", "Table 2", "p. 9", "0.75", "trec", ""],
    ])
    load = published.load("fer17", pub / "fer17.csv")
    figs = tmp_path / "figs"
    published.compare("fer17", {"t2/a": 0.5, "t2/b": 0.25}, published=load, notes={
        "t2/b": report.RECOMPUTED_PREFIX + " F and DF"}).save(figs / "fer17" / "published_vs_reproduced_simulated.csv")
    published.compare("fer17", {"t2/c": 0.75}, published=load).save(figs / "fer17" / "published_vs_reproduced.csv")
    st = report.paper_table("fer17", figs, pub).set_index("item")["status"].to_dict()
    assert st == {"t2/a": "simulated only", "t2/b": "reproduced", "t2/c": "reproduced"}


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
def test_matches_at_printed_precision(pub, rep, ok):
    assert published.matches(pub, rep) is ok


def test_repository_published_files_are_valid():
    root = repo_root()
    if root is None:
        pytest.skip("not a source checkout")
    files = sorted(published_dir().glob("*.csv"))
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

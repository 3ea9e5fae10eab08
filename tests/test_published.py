"""irscales.papers.published: the published files, the hand labels of readings.csv and the statuses
of a comparison (how printed numbers are read is tests/test_printing.py)."""

import fnmatch

import pandas as pd
import pytest

from irscales.papers import printing, published
from irscales.papers.report import PAPERS
from irscales.paths import published_dir, repo_root


def _pub(rows):
    return pd.DataFrame([{"item": i, "location": "", "context": c, "value": v, "kind": "example", "note": n}
                         for i, c, v, n in rows], columns=published.COLUMNS)


def test_compare_statuses_and_the_match_column():
    pub = _pub([("a", "", "0.96", ""), ("b", "", "0.97", ""), ("c", "", "0.95", "a known typo"), ("d", "", "1", "")])
    f = published.compare("x", {"a": 0.9661, "b": 0.9661, "c": 0.9661}, published=pub).frame.set_index("item")
    # a: only truncation gives it and no group shows a convention: depends on reading; c: neither gives it
    assert f["status"].to_dict() == {"a": "depends on reading", "b": "match", "c": "differs", "d": "not reproduced"}
    assert f["match"].to_dict() == {"a": False, "b": True, "c": False, "d": False}  # match: rounds to the printed value
    assert f.loc["a", "note"].startswith("depends on reading (truncated or rounded): right if the paper truncated")
    assert "no printed value beside it is recorded as its group" in f.loc["a", "note"]
    rounds = pd.DataFrame([{"paper": "x", "items": "[ab]", "group": "a column"}])
    h = published.compare("x", {"a": 0.9661, "b": 0.9661}, published=pub, groups=rounds).frame.set_index("item")
    assert h.loc["a", "status"] == "differs" and "but the paper rounds here: a column prints" in h.loc["a", "note"]
    groups = pd.DataFrame([{"paper": "x", "items": "[ab]", "group": "a column"}])
    pub2 = _pub([("a", "", "0.96", ""), ("b", "", "0.94", "")])  # b too only truncates: evidence for a
    g = published.compare("x", {"a": 0.9661, "b": 0.9461}, published=pub2, groups=groups).frame.set_index("item")
    assert g.loc["a", "status"] == "agrees within printing"
    assert g.loc["a", "note"].startswith("within the paper's printing (truncated): ")
    assert f.loc["c", "note"] == "a known typo"      # a differing item keeps its reason
    assert set(f["status"]) <= set(published.STATUSES)


def test_spreads_widen_the_reproduced_value():
    pub = _pub([("a", "", "+12.51%", "")])
    assert published.compare("x", {"a": 12.5}, published=pub).frame.loc[0, "status"] == "differs"
    assert published.compare("x", {"a": 12.5}, spreads={"a": 0.0133}, published=pub).frame.loc[0, "status"] == "match"


def test_repository_readings_are_valid_and_each_names_published_items():
    if repo_root() is None:
        pytest.skip("not a source checkout")
    labels = published.load_readings()
    assert len(labels) > 0 and set(labels.columns) == set(published.READING_COLUMNS)
    for r in labels.itertuples(index=False):
        assert r.paper in PAPERS, r
        items = published.load(r.paper)["item"]
        assert any(fnmatch.fnmatchcase(i, r.item) for i in items), f"stale label {r.paper} {r.item}"
        assert r.reading in ("open", "unknown") or r.reading in printing.WORDS or r.reading.startswith("figure ±")
        assert len(r.reason) > 40  # a reason in the paper's words, not a bare tag


@pytest.mark.parametrize("bad, msg", [
    ("paper,item\n", "expected columns"),
    ("paper,item,reading,reason\nfff21,a,guess,why\n", "reading must be"),
    ("paper,item,reading,reason\nfff21,a,about,\n", "needs its reason"),
    ("paper,item,reading,reason\nfff21,a,figure ±ten,why\n", "reading must be"),
    ("paper,item,reading,reason\nfff21,a,figure 10%,why\n", "reading must be"),
])
def test_readings_file_errors_name_the_line(tmp_path, bad, msg):  # noqa: D103
    p = tmp_path / "readings.csv"
    p.write_text(bad)
    with pytest.raises(published.PublishedFileError, match=f"{p}:[12]: .*{msg}"):
        published.load_readings(p)


def test_a_number_read_off_a_figure_is_held_to_its_label_resolution():
    """A 'figure ±r' label holds the printed value to ± r (the number's own units) and keeps it out of its
    group's evidence; a value beyond that resolution is an erratum that says so."""
    pub = _pub([("f/a", "", "20%", ""), ("f/b", "", "30%", ""), ("f/c", "", "20%", "")])
    labels = pd.DataFrame([{"paper": "x", "item": "f/[ab]", "reading": "figure ±10%", "reason": "read off Fig. 3"}])
    f = published.compare("x", {"f/a": 15.625, "f/b": 41.0, "f/c": 15.625}, published=pub,
                          labels=labels).frame.set_index("item")
    assert f["status"].to_dict() == {"f/a": "agrees within printing", "f/b": "differs", "f/c": "differs"}
    assert "read off a figure, which shows it to ± 10 points" in f.loc["f/a", "note"]
    assert "read as 'figure ±10%': read off Fig. 3" in f.loc["f/a", "note"]
    assert "nor is it within ± 10 points of it" in f.loc["f/b", "note"]


def test_contradicted_items_differ_even_with_unknown_settings():
    """Settings the paper does not give leave a value unresolved, unless its own printed numbers rule out
    every setting: then it is an erratum, with that evidence first in its note."""
    pub = _pub([("s/u", "", "0.8043", ""), ("s/v", "", "0.5137", "")])
    labels = pd.DataFrame([{"paper": "x", "item": "s/*", "reading": "unknown", "reason": "G*Power's settings"}])
    f = published.compare("x", {"s/u": 0.05, "s/v": 0.986}, published=pub, labels=labels,
                          contradicted={"s/u": "needs ω² 0.00031, printed 0.0000"}).frame.set_index("item")
    assert f["status"].to_dict() == {"s/u": "differs", "s/v": "unresolved"}
    assert f.loc["s/u", "note"].startswith("inconsistent with the paper's own printed numbers: needs ω² 0.00031")
    with pytest.raises(KeyError, match="not in data/published"):
        published.compare("x", {}, published=pub, contradicted={"s/w": "?"})


def test_labels_are_patterns_of_items():
    labels = pd.DataFrame([{"paper": "x", "item": "table[23]/*/power", "reading": "open", "reason": "G*Power"},
                           {"paper": "y", "item": "table2/a/power", "reading": "open", "reason": "other paper"}])
    got = published.reading_labels("x", ["table2/a/power", "table3/b/power", "table4/a/power", "table2/a/p"], labels)
    assert got == {"table2/a/power": ("open", "G*Power"), "table3/b/power": ("open", "G*Power")}


def test_the_repository_comparison_applies_the_repository_labels():
    """compare() on the repository's file reads data/published/readings.csv; on a frame given by the
    caller it applies none unless given (a test's own items must not meet the repository's labels)."""
    if repo_root() is None:
        pytest.skip("not a source checkout")
    f = published.compare("ffp17", {"s3.3/DCG/interval_like_equal_rel": "no"}).frame.set_index("item")
    assert f.loc["s3.3/DCG/interval_like_equal_rel", "status"] == "depends on reading"
    mine = published.load("ffp17")
    f = published.compare("ffp17", {"s3.3/DCG/interval_like_equal_rel": "no"}, published=mine).frame.set_index("item")
    assert f.loc["s3.3/DCG/interval_like_equal_rel", "status"] == "differs"
    assert (published_dir() / "readings.csv").exists()


def test_simulated_rows_keep_the_callers_note():
    """A value computed on simulated data says nothing about how the paper prints: no agreement reasons."""
    pub = _pub([("a", "", "0.9211", ""), ("b", "", "0.96", "")])
    f = published.compare("x", {"a": 0.9665, "b": 0.9661}, notes={"a": "on simulated runs"}, route="simulated",
                          published=pub).frame.set_index("item")
    assert f.loc["a", "note"] == "on simulated runs" and f.loc["b", "note"] == ""
    assert f.loc["a", "status"] == "differs" and f.loc["a", "route"] == "simulated"


def test_repository_printing_groups_name_published_items():
    if repo_root() is None:
        pytest.skip("not a source checkout")
    groups = published.load_groups()
    assert len(groups) > 0 and list(groups.columns) == published.GROUP_COLUMNS
    for r in groups.itertuples(index=False):
        items = published.load(r.paper)["item"]
        assert sum(fnmatch.fnmatchcase(i, r.items) for i in items) >= 2, f"a group of one: {r.paper} {r.items}"

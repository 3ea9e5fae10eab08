"""Tests of irscales.data.run_repeats: run files that list a document twice for a topic are read through
copies without the repeated lines (issue 30); a repeat with another score is an error naming both lines."""

from __future__ import annotations

import gzip

import pandas as pd
import pytest

from irscales.data import Collection
from irscales.data import trec as io
from irscales.data.run_repeats import repeated_lines, without_repeats
from irscales.data._trec_parse import TrecFormatError

QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 x 1\n"
# topic 1 lists 'a' twice (lines 1-2, same score) and 'b' twice (lines 3 and 5); topic 2 none
REPEATS = "1 Q0 a 1 9 s\n1 Q0 a 2 9 s\n1 Q0 b 3 8 s\n1 Q0 c 4 7 s\n1 Q0 b 5 8 s\n2 Q0 x 1 5 s\n"


def _gz(path, text):
    with gzip.open(path, "wt") as fh:
        fh.write(text)
    return path


def test_repeated_lines_are_found_by_topic_and_document(tmp_path):
    p = tmp_path / "run"
    p.write_text(REPEATS)
    assert repeated_lines(p) == ([1, 4], 1)
    p.write_text("1 Q0 a 1 9 s\n2 Q0 a 1 9 s\n")  # the same document for two topics is no repeat
    assert repeated_lines(p) == ([], 0)


def test_a_repeat_with_another_score_is_an_error_naming_both_lines(tmp_path):
    p = tmp_path / "run"
    p.write_text("1 Q0 a 1 9 s\n1 Q0 c 2 8 s\n1 Q0 a 3 7 s\n")
    with pytest.raises(TrecFormatError, match=r"run:3: document 'a' is listed again for topic '1' with another score "
                                              r"\(first at line 1, score 9\)"):
        repeated_lines(p)
    p.write_text("1 Q0 a 1 9 s\n1 Q0 a 2 9.0 s\n")  # the same number written differently: a repeat
    assert repeated_lines(p) == ([1], 1)


def test_the_reader_refuses_repeats_and_reads_the_copy(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    bad = _gz(runs / "repeats.out.gz", REPEATS)
    (runs / "clean.out").write_text("1 Q0 c 1 3 t\n1 Q0 a 2 2 t\n2 Q0 x 1 1 t\n")
    q = tmp_path / "qrels"
    q.write_text(QRELS)
    with pytest.raises(TrecFormatError, match="duplicate document"):
        io.read_trec(runs, q, depth=3, cache=False)
    files, report = without_repeats(io.find_runs(runs), folder=tmp_path / "copies")
    assert files[0] == runs / "clean.out"  # a file without repeats is read as it is
    assert files[1].name == "repeats.out.gz" and files[1].parent.parent == tmp_path / "copies"
    assert report.set_index("file").loc["repeats.out.gz", ["repeats_dropped", "topics_with_repeats"]].tolist() == [2, 1]
    with gzip.open(files[1], "rt") as fh:
        assert fh.read() == "1 Q0 a 1 9 s\n1 Q0 b 3 8 s\n1 Q0 c 4 7 s\n2 Q0 x 1 5 s\n"
    col = Collection.from_trec(files, q, depth=3, cache=False)
    assert col.systems == ("t", "s")  # tags distinct: named by tag; the copy keeps the file's name anyway
    assert col.rel[1, 0].tolist() == [2, 0, 1]  # a, b, c: the repeats are gone, c moved up to rank 3
    again, _ = without_repeats(io.find_runs(runs), folder=tmp_path / "copies")
    assert again == files  # the copy is written once


def test_report_has_one_row_per_file(tmp_path):
    p = tmp_path / "r"
    p.write_text("1 Q0 a 1 9 s\n")
    files, report = without_repeats([p], folder=tmp_path / "c")
    assert files == [p]
    assert isinstance(report, pd.DataFrame) and report["repeats_dropped"].tolist() == [0]


# ------------------------------------------------------------------ the reading option (issue 36)


@pytest.mark.parametrize("cache", [False, True], ids=["no cache", "cache"])
def test_on_repeated_lines_drop_reads_the_file_as_without_the_repeats(tmp_path, monkeypatch, cache):
    monkeypatch.setenv("IRSCALES_CACHE", str(tmp_path / "cache"))
    q = tmp_path / "qrels"
    q.write_text(QRELS)
    bad = tmp_path / "bad" / "run.txt"
    bad.parent.mkdir()
    bad.write_text(REPEATS)
    with pytest.raises(TrecFormatError, match=r"run.txt:2: duplicate document for topic '1', document 'a' \(first at "
                                              r"line 1\) with the same score; .* on_repeated_lines='drop'"):
        Collection.from_trec(bad, q, depth=5, cache=cache)
    clean = tmp_path / "clean" / "run.txt"
    clean.parent.mkdir()
    lines = REPEATS.splitlines(keepends=True)
    clean.write_text("".join(x for i, x in enumerate(lines) if i not in (1, 4)))
    with pytest.warns(UserWarning, match=r"run.txt: dropped 2 repeated line\(s\) \(the topic, document and score of "
                                         r"an earlier line\) in 1 topic\(s\)"):
        got = Collection.from_trec(bad, q, depth=5, cache=cache, on_repeated_lines="drop")
    want = Collection.from_trec(clean, q, depth=5, cache=cache)
    assert got.rel.tolist() == want.rel.tolist() and got.run_lengths.tolist() == want.run_lengths.tolist() == [[3, 1]]
    assert got.systems == want.systems and got.topics == want.topics
    # the parsed-run cache holds the copy's entry, not the file's: reading the file again still refuses it
    with pytest.raises(TrecFormatError, match="on_repeated_lines='drop'"):
        Collection.from_trec(bad, q, depth=5, cache=cache)


def test_a_repeat_with_another_score_is_an_error_with_either_option(tmp_path):
    q = tmp_path / "qrels"
    q.write_text(QRELS)
    p = tmp_path / "run.txt"
    p.write_text("1 Q0 a 1 9 s\n1 Q0 c 2 8 s\n1 Q0 a 3 7 s\n")
    with pytest.raises(TrecFormatError, match=r"run.txt:3: duplicate document for topic '1', document 'a' \(first at "
                                              r"line 1\) with another score \(9.0 there, 7.0 here\)") as e:
        io.read_trec([p], q, depth=3, cache=False)
    assert "on_repeated_lines" not in str(e.value)
    with pytest.raises(TrecFormatError, match=r"run.txt:3: document 'a' is listed again .*\(first at line 1, "
                                              r"score 9\)"):
        io.read_trec([p], q, depth=3, cache=False, on_repeated_lines="drop")


def test_on_repeated_lines_is_checked(tmp_path):
    q = tmp_path / "qrels"
    q.write_text(QRELS)
    with pytest.raises(ValueError, match=r"on_repeated_lines must be one of \('error', 'drop'\), got 'keep'"):
        io.read_trec([q], q, depth=3, on_repeated_lines="keep")

"""Tests of irscales.data.run_names: systems named by run tag, or all by file when files share a tag
(issue 30), through every reader a user's runs take (read_trec, Collection.from_trec, evaluate)."""

from __future__ import annotations

import gzip
import warnings

import numpy as np
import pytest

import irscales
from irscales.data import Collection
from irscales.data import trec as io
from irscales.data.run_names import file_system_name, system_names
from irscales.data._trec_parse import TrecFormatError

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 x 1\n2 0 y 0\n"


def _write(path, text):
    if path.suffix == ".gz":
        with gzip.open(path, "wt") as fh:
            fh.write(text)
    else:
        path.write_text(text)
    return path


def test_distinct_tags_name_the_systems_silently():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert system_names(["x", "y"], ["/r/input.x.gz", "/r/input.y.gz"]) == ["x", "y"]


def test_a_shared_tag_names_every_system_by_file():
    with pytest.warns(UserWarning, match=r"^2 run files share run tags \('indri' ×2\): every system is named by"):
        names = system_names(["indri", "indri", "bm25"], ["/r/okapi.out.gz", "/r/tfidf.out.gz", "/r/t.out"])
    assert names == ["okapi.out", "tfidf.out", "t.out"]  # the distinct tag too: one rule per collection


def test_file_system_name_drops_gz_only():
    assert file_system_name("/a/input.uwmt8a0.gz") == "input.uwmt8a0"
    assert file_system_name("run.txt") == "run.txt" and file_system_name(".gz") == ".gz"


def test_shared_tag_without_files_or_with_equal_file_names_is_an_error():
    with pytest.raises(TrecFormatError, match="is not read from a file; give each run its own name"):
        system_names(["s", "s"], ["<run s>", "<run s>"])
    with pytest.raises(TrecFormatError, match=r"both named 'run'; rename one"):
        system_names(["s", "s"], ["/one/run.gz", "/two/run"])


@pytest.fixture()
def shared_tag_folder(tmp_path):
    """Three run files, two of them tagged 'indri', with different rankings."""
    runs = tmp_path / "runs"
    runs.mkdir()
    _write(runs / "indri_a.out.gz", "1 Q0 a 1 3 indri\n1 Q0 c 2 2 indri\n2 Q0 x 1 1 indri\n")
    _write(runs / "indri_b.out.gz", "1 Q0 c 1 3 indri\n1 Q0 b 2 2 indri\n2 Q0 y 1 1 indri\n")
    _write(runs / "other.out", "1 Q0 b 1 3 bm25\n1 Q0 a 2 2 bm25\n2 Q0 x 1 1 bm25\n")
    return runs, _write(tmp_path / "qrels.txt", QRELS)


def test_collection_from_trec_keeps_runs_that_share_a_tag_apart(shared_tag_folder):
    runs, qrels = shared_tag_folder
    with pytest.warns(UserWarning, match="named by its file"):
        col = Collection.from_trec(runs, qrels, depth=2, cache=False)
    assert col.systems == ("indri_a.out", "indri_b.out", "other.out")
    assert col.rel[:, 0].tolist() == [[1, 2], [2, 0], [0, 1]]  # topic 1: three different rankings
    assert col.rel[:, 1].tolist() == [[1, 0], [0, 0], [1, 0]]


def test_evaluate_names_runs_by_file_when_tags_are_shared(shared_tag_folder):
    runs, qrels = shared_tag_folder
    with pytest.warns(UserWarning, match="named by its file"):
        ev = irscales.evaluate(qrels, runs, "P@2", depth=2, cache=False)
    assert ev.systems == ("indri_a.out", "indri_b.out", "other.out")
    assert np.allclose(ev.values("P@2").to_numpy(), [[1.0, 0.5, 0.5], [0.5, 0.0, 0.5]])

"""Tests of irscales.data._run_scores on score tables written in tmp_path, and on the published
TREC-7 tables when the shared folder is present."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from irscales import paths
from irscales.data._run_scores import RunScoresError, read_run_scores


def _write(folder, rows=("351", "352"), key="run1\tacsys7al\nrun2\tAntHoc01\n", body="run1,run2\n0.5,0.25\n0,1e-04\n"):
    folder.mkdir(exist_ok=True)
    (folder / "adhoc7_columns.txt").write_text(key)
    (folder / "adhoc7_rows.txt").write_text("\n".join(rows) + "\n")
    with gzip.open(folder / "adhoc7_ap.csv.gz", "wt") as f:
        f.write(body)
    return folder


def test_reads_and_labels_a_table(tmp_path):
    d = read_run_scores(_write(tmp_path / "t"), "adhoc7", "ap")
    assert list(d.columns) == ["acsys7al", "AntHoc01"] and list(d.index) == ["351", "352"]
    assert d.loc["352", "AntHoc01"] == 1e-4 and d.to_numpy().dtype == float


@pytest.mark.parametrize("kw, match", [
    ({"key": "run1\tacsys7al\n"}, r"column\(s\) run2 not in adhoc7_columns\.txt"),
    ({"key": "run1 acsys7al\nrun2\tx\n"}, r"adhoc7_columns\.txt:1: expected"),
    ({"rows": ("351",)}, "2 rows of scores but 1 topics"),
    ({"body": "run1,run2\n0.5,abc\n0,1\n"}, r"adhoc7_ap\.csv\.gz:2: column run2: expected a number, got 'abc'"),
    ({"body": "run1,run2\n0.5,\n0,1\n"}, r"adhoc7_ap\.csv\.gz:2: column run2: expected a number"),
    ({"key": "run1\tx\nrun2\tx\n"}, "same run tag"),
])
def test_bad_tables_are_one_line_errors(tmp_path, kw, match):
    with pytest.raises(RunScoresError, match=match):
        read_run_scores(_write(tmp_path / "t", **kw), "adhoc7", "ap")


def test_missing_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such score table"):
        read_run_scores(tmp_path, "adhoc7", "ap")
    folder = _write(tmp_path / "t")
    (folder / "adhoc7_rows.txt").unlink()
    with pytest.raises(FileNotFoundError, match="adhoc7_rows.txt: missing"):
        read_run_scores(folder, "adhoc7", "ap")


@pytest.mark.data
def test_published_trec7_tables():
    root = paths.scores_dir()
    if root is None:
        pytest.skip("the shared score tables are absent (IRSCALES_SCORES / IRSCALES_SHARED/scores)")
    ap = read_run_scores(root / "T07-adhoc", "adhoc7", "ap")
    p10 = read_run_scores(root / "T07-adhoc", "adhoc7", "p10")
    assert ap.shape == p10.shape == (50, 103) and list(ap.index) == [str(t) for t in range(351, 401)]
    assert ap.columns.equals(p10.columns) and not ap.isna().any().any()
    assert np.allclose(np.round(p10.to_numpy() * 10), p10.to_numpy() * 10)  # P@10: tenths

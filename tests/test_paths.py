"""The IRSCALES_TREC setting (irscales.paths.trec_dir / trec_track): layouts made in tmp_path."""

from __future__ import annotations

import pytest

from irscales import paths as P


def _track(root, name, qrels=("qrels.txt",), runs=("input.a",)):
    d = root / name
    (d / "runs").mkdir(parents=True)
    for r in runs:
        (d / "runs" / r).write_text("401 Q0 d1 1 1.0 a\n")
    for q in qrels:
        (d / q).write_text("401 0 d1 1\n")
    return d


def test_trec_track_finds_runs_and_qrels(tmp_path, monkeypatch):
    monkeypatch.setenv("IRSCALES_TREC", str(tmp_path))
    d = _track(tmp_path, "T08", qrels=("qrels.trec8.adhoc.gz",))
    t = P.trec_track("T08")
    assert t == P.TrecTrack("T08", d / "runs", d / "qrels.trec8.adhoc.gz")
    assert P.trec_track("T26") is None  # absent: stays simulated
    assert list(P.trec_tracks()) == ["T08"]


def test_trec_track_errors_say_what_is_expected(tmp_path, monkeypatch):
    monkeypatch.setenv("IRSCALES_TREC", str(tmp_path))
    _track(tmp_path, "T26", qrels=())
    with pytest.raises(P.MissingSharedData, match="exactly one qrels file.*found none"):
        P.trec_track("T26")
    _track(tmp_path, "T27", qrels=("qrels.a", "qrels.b"))
    with pytest.raises(P.MissingSharedData, match="found qrels.a, qrels.b"):
        P.trec_track("T27")
    (tmp_path / "R04").mkdir()
    (tmp_path / "R04" / "qrels.txt").write_text("")
    with pytest.raises(P.MissingSharedData, match="run files in"):
        P.trec_track("R04")
    monkeypatch.setenv("IRSCALES_TREC", str(tmp_path / "nowhere"))
    with pytest.raises(P.MissingSharedData, match="IRSCALES_TREC=.*not a folder"):
        P.trec_dir()


def test_trec_dir_defaults_to_the_shared_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("IRSCALES_TREC", raising=False)
    monkeypatch.setenv("IRSCALES_SHARED", str(tmp_path))
    assert P.trec_dir() is None and P.trec_tracks() == {}
    _track(tmp_path / "trec", "T08")
    assert P.trec_dir() == tmp_path / "trec" and list(P.trec_tracks()) == ["T08"]

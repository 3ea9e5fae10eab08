"""The IRSCALES_TREC setting (irscales.paths.trec_dir / trec_track): layouts made in tmp_path."""

from __future__ import annotations

import pytest

from irscales import paths as P

pytestmark = pytest.mark.data  # reads the public collections or the shared folder


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


def test_trec_qrels_finds_a_tracks_qrels_without_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("IRSCALES_TREC", str(tmp_path))
    assert P.trec_qrels("T26") is None
    (tmp_path / "qrels").mkdir()
    for f in ("qrels.core17.txt.gz", "qrels.core18.txt.gz", "notes.core17"):
        (tmp_path / "qrels" / f).write_text("")
    assert P.trec_qrels("T26") == tmp_path / "qrels" / "qrels.core17.txt.gz"
    assert P.trec_qrels("T27") == tmp_path / "qrels" / "qrels.core18.txt.gz"
    assert P.trec_qrels("R04") is None  # no key for it in qrels/, no R04/ folder
    # the track's own folder wins over qrels/
    (tmp_path / "T26").mkdir()
    (tmp_path / "T26" / "qrels.mine.txt").write_text("")
    assert P.trec_qrels("T26") == tmp_path / "T26" / "qrels.mine.txt"
    (tmp_path / "qrels" / "qrels.core18.v2.txt").write_text("")
    with pytest.raises(P.MissingSharedData, match="more than one qrels file for T27"):
        P.trec_qrels("T27")


def test_trec_qrels_absent_setting_is_none(monkeypatch, tmp_path):
    monkeypatch.delenv("IRSCALES_TREC", raising=False)
    monkeypatch.setenv("IRSCALES_SHARED", str(tmp_path))
    assert P.trec_qrels("T26") is None


def test_gop_and_scores_folders_from_settings_or_the_shared_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("IRSCALES_GOP", raising=False)
    monkeypatch.delenv("IRSCALES_SCORES", raising=False)
    monkeypatch.setenv("IRSCALES_SHARED", str(tmp_path))
    assert P.gop_dir() is None and P.scores_dir() is None
    (tmp_path / "gop" / "trec-jasist2017").mkdir(parents=True)
    (tmp_path / "scores").mkdir()
    assert P.gop_dir() == tmp_path / "gop" / "trec-jasist2017" and P.scores_dir() == tmp_path / "scores"
    monkeypatch.setenv("IRSCALES_GOP", str(tmp_path / "scores"))
    assert P.gop_dir() == tmp_path / "scores"
    monkeypatch.setenv("IRSCALES_SCORES", str(tmp_path / "nowhere"))
    with pytest.raises(P.MissingSharedData, match="IRSCALES_SCORES=.*not a folder"):
        P.scores_dir()

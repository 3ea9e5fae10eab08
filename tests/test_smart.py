"""Tests of irscales.data.smart (SMART parsers) and irscales.data.datasets (finding / fetching the data).

Small hand-made collections are written in code (CRLF, repeated fields, a blank after a marker,
Cranfield's numbering and grades); the real files are read from wherever :func:`datasets.locate`
finds them (the shipped archives on a checkout; skipped with the reason otherwise)."""

from __future__ import annotations

import io as _io
import tarfile
import urllib.error

import numpy as np
import pytest

from irscales.data import datasets
from irscales.data import smart


def _mirror_or_skip(name: str):
    try:
        return datasets.locate(name)
    except datasets.DataUnavailable as e:
        pytest.skip(f"public collection absent: {e}")


# ----------------------------------------------------------------------------- parse_records


def test_parse_records_crlf_repeated_field_blank_marker(tmp_path):
    p = tmp_path / "docs"
    p.write_bytes(b".I 1\r\n.T \r\nA title\r\n.W\r\nfirst part\r\n.A\r\nsomeone\r\n.W\r\nsecond part\r\n"
                  b".I 2\r\n.W\r\nonly text\r\n")
    recs = smart.parse_records(p)
    assert [r[0] for r in recs] == ["1", "2"]
    assert recs[0][1] == {"T": "A title", "W": "first part\nsecond part", "A": "someone"}
    assert recs[1][1] == {"W": "only text"}
    assert [r[2] for r in recs] == [1, 10]


@pytest.mark.parametrize("text, line, what", [
    ("junk\n.I 1\n.W\nx\n", 1, "before the first '.I'"),
    (".I\n.W\nx\n", 1, "without a record id"),
    (".I 1\nloose text\n", 2, "before any field marker"),
])
def test_parse_records_errors_name_the_line(tmp_path, text, line, what):
    p = tmp_path / "bad"
    p.write_text(text)
    with pytest.raises(smart.SmartFormatError, match=f"bad:{line}: .*{what}"):
        smart.parse_records(p)


# ----------------------------------------------------------------------------- mini collections


def _write_cran(d, qrels: str):
    d.mkdir(parents=True, exist_ok=True)
    (d / "cran.all.1400").write_text(
        ".I 1\n.T\nwing flow\n.A\nx\n.B\ny\n.W\nwing flow over plates\n"
        ".I 2\n.T\nheat\n.W\nheat transfer\n.I 3\n.T\nshock\n.W\nshock waves\n")
    # .I numbers are not 1..3: the qrels number the queries in file order
    (d / "cran.qry").write_text(".I 001\n.W\nwing flow\n.I 004\n.W\nheat\n.I 009\n.W\nshock wave\n")
    (d / "cranqrel").write_text(qrels)


def test_cranfield_numbering_and_grades(tmp_path):
    d = tmp_path / "cranfield"
    _write_cran(d, "1 1 1\n1 2 -1\n2 2 4 \n3 3 2\n3 1 3\n")
    c = smart.read_collection("cranfield", d, validate=False)
    assert list(c.queries) == ["1", "2", "3"]
    assert c.queries["2"] == "heat"  # the query whose .I is 004
    assert c.docs["1"] == "wing flow\nwing flow over plates"  # title + text; no authors/source
    # grade = 5 - code for codes 1..4, -1 -> judged not relevant
    got = {(t, d): r for t, d, r in c.qrels.itertuples(index=False)}
    assert got == {("1", "1"): 4, ("1", "2"): 0, ("2", "2"): 1, ("3", "3"): 3, ("3", "1"): 2}
    assert c.raw_grades.tolist() == [1, -1, 4, 2, 3]
    assert c.binary_qrels()["rel"].tolist() == [1, 0, 1, 1, 1]
    assert c.max_grade == 4 and c.judged_topics == ["1", "2", "3"]


@pytest.mark.parametrize("qrels, what", [
    ("1 1 5\n", "code 5 is not one of"),
    ("4 1 1\n", "beyond the 3 queries"),
    ("1 9 1\n", "absent from the collection"),
    ("1 1 1\n1 1 2\n", "judged twice"),
    ("1 1\n", "expected 3 or 4 columns"),
])
def test_cranfield_bad_qrels(tmp_path, qrels, what):
    d = tmp_path / "cranfield"
    _write_cran(d, qrels)
    with pytest.raises(smart.SmartFormatError, match=what):
        smart.read_collection("cranfield", d, validate=False)


def test_content_validation_names_the_difference(tmp_path):
    d = tmp_path / "cranfield"
    _write_cran(d, "1 1 1\n")
    with pytest.raises(smart.SmartFormatError, match="documents: found 3, expected 1400"):
        smart.read_collection("cranfield", d)


def test_cacm_like_empty_query_and_unjudged_queries(tmp_path):
    d = tmp_path / "cacm"
    d.mkdir()
    (d / "cacm.all").write_text(".I 1\n.T\nAlgol\n.K\ncompilers\n.N\nCA\n.X\n1 5 1\n.I 2\n.T\nSort\n")
    (d / "query.text").write_text(".I 1\n.W\n compilers?\n.N\n 1. x\n.I 2\n.W\n sorting\n.I 0\n")
    (d / "qrels.text").write_text("02 1  0 0\n")
    (d / "common_words").write_text("a\nthe\nOf\n")
    c = smart.read_collection("cacm", d, validate=False)
    assert list(c.queries) == ["1", "2"] and c.judged_topics == ["2"]
    assert any(".I 0" in n for n in c.notes)
    assert c.docs["1"] == "Algol\ncompilers"  # title + keywords; no .N/.X
    assert c.stopwords == ("a", "the", "of")


def test_unknown_collection_and_missing_files(tmp_path):
    with pytest.raises(KeyError, match="unknown collection"):
        smart.read_collection("trec", tmp_path)  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError, match="CISI.ALL"):
        smart.read_collection("cisi", tmp_path)


# ----------------------------------------------------------------------------- the mirror


@pytest.mark.data
@pytest.mark.parametrize("name", smart.NAMES)
def test_mirror_content_counts(name):
    _mirror_or_skip(name)
    c = datasets.load(name)  # validates against EXPECTED
    assert c.counts() == smart.EXPECTED[name]
    assert all(c.qrels["rel"] >= 0) and c.qrels["rel"].max() == c.max_grade
    # every judged topic has a query text and a relevant document
    assert all(c.queries[t].strip() for t in c.judged_topics)


@pytest.mark.data
def test_mirror_cranfield_details():
    _mirror_or_skip("cranfield")
    c = datasets.load("cranfield")
    # query 3 of the qrels is the third query of the file, whose .I is 004
    assert c.queries["3"].startswith("what problems of heat conduction in composite slabs")
    # codes 1..4 map to grades 4..1; -1 to 0 (counts of each code in cranqrel)
    assert dict(zip(*np.unique(c.raw_grades, return_counts=True))) == {-1: 225, 1: 128, 2: 387, 3: 734, 4: 363}
    assert (c.qrels["rel"].to_numpy() == np.where(c.raw_grades > 0, 5 - c.raw_grades, 0)).all()
    # document 576 has two .W fields: both are kept
    assert "viscous and inviscid stagnation flow" in c.docs["576"] and c.docs["576"].count("\n") > 20


@pytest.mark.data
def test_mirror_cisi_cacm_unjudged():
    _mirror_or_skip("cisi")
    _mirror_or_skip("cacm")
    cisi, cacm = datasets.load("cisi"), datasets.load("cacm")
    assert len(cisi.queries) - len(cisi.judged_topics) == 36
    assert "0" not in cacm.queries and len(cacm.queries) - len(cacm.judged_topics) == 12
    assert "the" in cacm.stopwords and len(cacm.stopwords) > 400


# ----------------------------------------------------------------------------- datasets


@pytest.fixture
def no_data(tmp_path, monkeypatch):
    monkeypatch.setenv("IRSCALES_COLLECTIONS", str(tmp_path / "mirror"))
    monkeypatch.setattr(datasets, "archive_dir", lambda: tmp_path / "no-archives")
    monkeypatch.setattr(datasets, "external_dir", lambda: tmp_path / "external")
    return tmp_path


@pytest.mark.data
def test_missing_data_says_how_to_get_it(no_data):
    with pytest.raises(datasets.DataUnavailable) as e:
        datasets.load("cisi")
    msg = str(e.value)
    assert "make data" in msg and "IRSCALES_COLLECTIONS" in msg and "CISI.ALL" in msg
    assert not datasets.available("cisi")


@pytest.mark.data
def test_no_network_is_a_clear_error(no_data, monkeypatch):
    def fail(*a, **k):
        raise urllib.error.URLError("Name or service not known")
    monkeypatch.setattr(datasets.urllib.request, "urlopen", fail)
    with pytest.raises(datasets.DataUnavailable, match="cannot download 'cacm'.*IRSCALES_COLLECTIONS"):
        datasets.load("cacm", fetch=True)
    assert datasets.main(["cacm"]) == 1  # the command-line form reports, no traceback


@pytest.mark.data
def test_download_extracts_only_the_needed_files(no_data, monkeypatch):
    buf = _io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, text in [("cisi/CISI.ALL", ".I 1\n.T\nx\n.W\nlibraries\n"),
                           ("cisi/CISI.QRY", ".I 1\n.W\nlibraries\n"),
                           ("cisi/CISI.REL", "1 1 0 0.000000\n"), ("cisi/README", "junk"),
                           ("../evil", "no")]:
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, _io.BytesIO(data))
    payload = buf.getvalue()

    class Resp(_io.BytesIO):
        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

    monkeypatch.setattr(datasets.urllib.request, "urlopen", lambda url, timeout: Resp(payload))
    folder = datasets.download("cisi")
    assert sorted(p.name for p in folder.iterdir()) == ["CISI.ALL", "CISI.QRY", "CISI.REL"]
    assert not (no_data / "evil").exists()
    c = datasets.load("cisi", validate=False)
    assert c.counts() == {"documents": 1, "queries": 1, "judged_queries": 1, "judgments": 1}
    with pytest.raises(smart.SmartFormatError, match="content check failed"):
        datasets.load("cisi")


@pytest.mark.data
def test_mirror_setting_is_used(tmp_path, monkeypatch):
    d = tmp_path / "m" / "cranfield"
    _write_cran(d, "1 1 1\n")
    monkeypatch.setenv("IRSCALES_COLLECTIONS", str(tmp_path / "m"))
    assert datasets.locate("cranfield") == d
    with pytest.raises(KeyError, match="unknown collection"):
        datasets.locate("trec")

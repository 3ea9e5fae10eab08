"""The public collections shipped in data/collections/ (issue 17): checksums agree between the
archives, SHA256SUMS and PROVENANCE.md; the archives parse to the documented counts with no
other source of data; a damaged archive is refused with a one-line reason; the mirror setting
takes precedence."""

from __future__ import annotations

import hashlib
import re
import tarfile

import pytest

from irscales.data import datasets
from irscales.data import smart
from irscales.paths import repo_root

ROOT = repo_root()
pytestmark = [pytest.mark.data, pytest.mark.skipif(ROOT is None, reason="not a source checkout (no data/collections)")]


def _sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def test_archives_match_their_checksums():
    d = ROOT / "data" / "collections"
    sums = datasets.checksums()
    assert set(sums) == {f"{n}.tar.xz" for n in smart.NAMES} | {
        f"{n}/{f}" for n, fs in datasets.ARCHIVE_MEMBERS.items() for f in fs}
    for name in smart.NAMES:
        arc = d / f"{name}.tar.xz"
        assert _sha(arc.read_bytes()) == sums[arc.name]
        with tarfile.open(arc, "r:xz") as tar:
            members = tar.getmembers()
            assert [m.name for m in members] == [f"{name}/{f}" for f in datasets.ARCHIVE_MEMBERS[name]]
            assert all(m.isfile() for m in members)
            for m in members:
                assert _sha(tar.extractfile(m).read()) == sums[m.name], m.name
        # every file the parser needs is in the archive
        assert set(smart.FILES[name].values()) <= set(datasets.ARCHIVE_MEMBERS[name])


def test_provenance_lists_every_checksum():
    text = (ROOT / "data" / "collections" / "PROVENANCE.md").read_text()
    table = dict(re.findall(r"^\| `([^`]+)` \| `([0-9a-f]{64})` \|$", text, flags=re.M))
    assert table == datasets.checksums()
    assert "ir.dcs.gla.ac.uk/resources/test_collections" in text
    assert "gives no licence" in text and "Nothing." in text


@pytest.mark.parametrize("name", smart.NAMES)
def test_shipped_archive_parses_to_expected_counts(name, tmp_path, monkeypatch):
    # nothing but the repository: no mirror setting, an empty shared folder, a fresh cache
    monkeypatch.delenv("IRSCALES_COLLECTIONS", raising=False)
    monkeypatch.setenv("IRSCALES_SHARED", str(tmp_path / "empty-shared"))
    monkeypatch.setenv("IRSCALES_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(datasets, "external_dir", lambda: tmp_path / "external")
    folder = datasets.locate(name)
    assert folder.parent == tmp_path / "cache" / "collections"
    c = datasets.load(name)
    assert c.counts() == smart.EXPECTED[name]
    # extracted once: a second call reuses the folder
    assert datasets.locate(name) == folder


def _no_network(*a, **k):
    raise datasets.urllib.error.URLError("no network in tests")


def test_damaged_archive_is_refused(tmp_path, monkeypatch):
    d = tmp_path / "collections"
    d.mkdir()
    good = (ROOT / "data" / "collections" / "cisi.tar.xz").read_bytes()
    (d / "cisi.tar.xz").write_bytes(good[:-10] + b"0123456789")
    (d / "SHA256SUMS").write_text((ROOT / "data" / "collections" / "SHA256SUMS").read_text())
    monkeypatch.delenv("IRSCALES_COLLECTIONS", raising=False)
    monkeypatch.setenv("IRSCALES_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(datasets, "archive_dir", lambda: d)
    monkeypatch.setattr(datasets, "external_dir", lambda: tmp_path / "external")
    monkeypatch.setattr(datasets.urllib.request, "urlopen", _no_network)
    with pytest.raises(datasets.DataUnavailable, match=r"cisi\.tar\.xz: SHA-256 .* does not match") as e:
        datasets.locate("cisi")
    assert "\n" not in str(e.value)
    assert datasets.main(["cisi"]) == 1 and not (tmp_path / "cache" / "collections").exists()


def test_mirror_setting_takes_precedence(tmp_path, monkeypatch):
    src = datasets.locate("cacm")
    mirror = tmp_path / "mirror" / "cacm"
    mirror.mkdir(parents=True)
    for f in smart.FILES["cacm"].values():
        (mirror / f).write_bytes((src / f).read_bytes())
    monkeypatch.setenv("IRSCALES_COLLECTIONS", str(tmp_path / "mirror"))
    assert datasets.locate("cacm") == mirror
    # an incomplete mirror falls back to the shipped archive
    (mirror / "qrels.text").unlink()
    assert datasets.locate("cacm") != mirror and datasets.load("cacm").counts() == smart.EXPECTED["cacm"]

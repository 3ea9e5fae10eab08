"""Issue 37 (2): unbounded input. A 2 MB gzip file of zeros peaked at 4.3 GB and ended with ``Unable to
allocate output buffer.`` without the path; ``/dev/zero`` as the run or the qrels ended in ``MemoryError``;
a bz2 file was "a NUL byte". Inputs are generated here; commands that could run away on a regression run in
a subprocess with a timeout."""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import resource
import subprocess
import sys
import threading
import zipfile
import zlib
from pathlib import Path

import pytest

from irscales.data import _input_bytes as IB
from irscales.data import _trec_fast as trec_fast
from irscales.data._input_bytes import InputError, gunzip, read_bounded
from irscales.data.trec import read_qrels, read_run
from irscales.data._trec_fast import Scratch, file_text, read_file
from irscales.data._trec_parse import TrecFormatError

SRC = Path(__file__).resolve().parents[1] / "src"
RUN = "".join(f"{t} Q0 d{i} {i} {50 - i} tag\n" for t in (1, 2) for i in range(1, 40))


def _cli(args: list[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """The command in a new process; prints its peak resident memory (KB) on the last line of stdout: the
    process's own high-water mark (VmHWM), not ``ru_maxrss``, which Linux carries over from the parent through
    fork and exec (a test session of a gigabyte would be counted as the command's).
    An address-space limit of 6 GB keeps a regression from taking the machine's memory."""
    code = ("import sys\nfrom irscales.cli import main\ntry:\n    main()\nexcept SystemExit as e:\n"
            "    print(next(int(x.split()[1]) for x in open('/proc/self/status') if x.startswith('VmHWM:')))\n"
            "    sys.exit(e.code)")

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (6 * 2**30, 6 * 2**30))

    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, preexec_fn=limit, env={**os.environ, "PYTHONPATH": str(SRC)})


def _bomb(text_bytes: int) -> bytes:
    """Gzipped zeros: members of 1 MiB of zeros (about 1 KB each, deflate's 1:1000), one after the other."""
    member = gzip.compress(b"\0" * 2**20, 9)
    return member * (text_bytes // 2**20)


@pytest.mark.parametrize("role", ["run", "qrels"])
def test_a_gzip_bomb_stops_at_its_bound_names_the_file_and_stays_small(tmp_path, role):
    bomb = tmp_path / "bomb.gz"
    bomb.write_bytes(_bomb(2 * 2**30))  # 2 MB that expand to 2 GB
    (tmp_path / "run").write_text(RUN)
    (tmp_path / "qrels").write_text("1 0 d1 1\n")
    args = ["scores", "bomb.gz", "--qrels", "qrels"] if role == "run" else ["scores", "run", "--qrels", "bomb.gz"]
    r = _cli(args, tmp_path)
    assert r.returncode == 1 and r.stderr.startswith("irscales: error: bomb.gz: gzipped text of more than ")
    assert "decompression bomb" in r.stderr and len(r.stderr.splitlines()) == 1
    peak_kb = int(r.stdout.split()[-1])
    assert peak_kb < 2**20, f"peak {peak_kb / 2**20:.2f} GB"  # was 4.3 GB


def test_gunzip_bound_on_one_member(tmp_path):
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    data = b"".join(c.compress(b"\0" * 2**20) for _ in range(80)) + c.flush()  # 80 MiB in 80 KB
    with pytest.raises(InputError, match=r"^bomb\.gz: gzipped text of more than 67,108,864 bytes from "):
        gunzip("bomb.gz", data)


def test_gunzip_reads_what_gzip_reads_and_refuses_what_it_refuses():
    text = RUN.encode() * 300
    two = gzip.compress(text[:5000]) + gzip.compress(text[5000:])
    assert gunzip("r", gzip.compress(text)) == text and gunzip("r", two) == text
    with pytest.raises(InputError, match=r"^r: cannot read file: the gzip data ends early"):
        gunzip("r", gzip.compress(text)[:-20])
    with pytest.raises(InputError, match=r"^r: cannot read file: bytes after the end of the gzip data"):
        gunzip("r", gzip.compress(text) + b"junk")


T08 = Path(os.environ.get("IRSCALES_SHARED", "/work/shared")) / "trec" / "T08"


@pytest.mark.data
@pytest.mark.skipif(not (T08 / "runs").is_dir(), reason=f"needs the TREC-8 runs in {T08} (IRSCALES_SHARED)")
def test_real_runs_pass_the_bounds():
    files = sorted((T08 / "runs").glob("*.gz"), key=lambda f: f.stat().st_size)[-3:] + [T08 / "qrels.trec8.adhoc.gz"]
    for f in files:
        raw = f.read_bytes()
        assert gunzip(f, raw) == gzip.decompress(raw)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
@pytest.mark.parametrize("role", ["run", "qrels"])
def test_a_device_is_refused_naming_it(tmp_path, device, role):
    (tmp_path / "run").write_text(RUN)
    (tmp_path / "qrels").write_text("1 0 d1 1\n")
    args = ["scores", device, "--qrels", "qrels"] if role == "run" else ["scores", "run", "--qrels", device]
    r = _cli(args, tmp_path, timeout=60)
    assert (r.returncode, r.stderr) == (1, f"irscales: error: {device}: is a character device, not a file: "
                                           "expected a run or qrels file\n")


def test_a_device_is_refused_by_both_readers():
    with pytest.raises(TrecFormatError, match="^/dev/zero: is a character device, not a file"):
        read_file(Path("/dev/zero"), Scratch())
    with pytest.raises(TrecFormatError, match="^/dev/zero: is a character device, not a file"):
        read_qrels("/dev/zero")


def test_a_pipe_is_read_up_to_the_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(trec_fast, "MAX_TEXT_BYTES", 5000)
    fifo = tmp_path / "run"
    os.mkfifo(fifo)

    def writer():
        try:
            with open(fifo, "wb") as fh:
                fh.write(RUN.encode() * 100)  # 280 KB
        except BrokenPipeError:  # the reader stopped at its bound
            pass

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    with pytest.raises(TrecFormatError, match=r"^.*/run: more than \d[\d,]* bytes of text: not read further"):
        read_file(fifo, Scratch())
    t.join(30)
    with pytest.raises(InputError, match=r"^p: more than 10 bytes"):
        read_bounded(io.BytesIO(b"x" * 100), "p", limit=10)
    assert read_bounded(io.BytesIO(b"x" * 10), "p", limit=10) == b"x" * 10


def _zip(text: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("run", text)
    return buf.getvalue()


@pytest.mark.parametrize("name, compress", [("bz2", bz2.compress), ("xz", lzma.compress), ("zip", _zip),
                                            ("zstd", lambda b: b"(\xb5/\xfd" + b"\0" * 20)])
def test_other_compressions_are_named(tmp_path, name, compress):
    f = tmp_path / f"run.{name}"
    f.write_bytes(compress(RUN.encode()))
    want = f"^{f}: compressed with {name}; only gzip is read \\(decompress it first\\)$"
    with pytest.raises(TrecFormatError, match=want):
        read_run(f)
    with pytest.raises(TrecFormatError, match=want):
        read_qrels(f)
    with pytest.raises(TrecFormatError, match=want):
        raw, text = read_file(f, Scratch())
        file_text(f, raw, text, Scratch())


def test_a_text_starting_like_bz2_is_text(tmp_path):
    f = tmp_path / "run"
    f.write_text("BZh Q0 d1 1 1.0 tag\n")
    assert list(read_run(f)["topic"]) == ["BZh"]


def test_limits_are_documented():
    assert IB.MAX_TEXT_BYTES == 4 * 2**30 and IB.MAX_RATIO == 100 and IB.RATIO_FLOOR == 64 * 2**20
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert "decompression bomb" in readme and "MAX_TEXT_BYTES" in readme

"""Issue 37 (1): every file is written whole or not at all (irscales._atomic.write_atomic).

``-o`` onto a full disk truncated the existing file to 4 KB (``Path.write_text``) and said ``[Errno 28] No
space left on device`` without the path. Here a full disk is a 64 KB tmpfs (skipped, with the reason, where
mounting is not permitted)."""
from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from irscales._atomic import write_atomic
from irscales.cli import main

OLD = "the old table\n" * 100


@pytest.fixture
def full_disk(tmp_path):
    """A 64 KB tmpfs holding ``old.csv``, filled to the last byte."""
    mnt = tmp_path / f"tmpfs-{uuid.uuid4().hex[:8]}"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)], capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"cannot mount a small tmpfs to fill it (needs root or CAP_SYS_ADMIN): {r.stderr.strip()}")
    try:
        (mnt / "old.csv").write_text(OLD)
        with open(mnt / "filler", "wb", buffering=0) as fh:
            try:
                while True:
                    fh.write(b"\0" * 512)
            except OSError as e:
                assert e.errno == errno.ENOSPC
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


def test_a_full_disk_keeps_the_old_file_and_names_it(full_disk):
    target = full_disk / "old.csv"
    with pytest.raises(OSError) as e:
        write_atomic(target, "x" * 200_000)
    assert e.value.errno == errno.ENOSPC and e.value.filename == str(target)
    assert target.read_text() == OLD
    assert sorted(p.name for p in full_disk.iterdir()) == ["filler", "old.csv"]  # no temporary file left


def test_the_cli_on_a_full_disk_keeps_the_old_file_and_names_it(full_disk, tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    lines = [f"{t} Q0 d{i} {i} {100 - i} run{k}" for k in range(2) for t in range(1, 40) for i in range(1, 30)]
    for k in range(2):
        (runs / f"run{k}").write_text("\n".join(x for x in lines if x.endswith(f"run{k}")) + "\n")
    (tmp_path / "qrels").write_text("".join(f"{t} 0 d{i} 1\n" for t in range(1, 40) for i in range(1, 30, 3)))
    target = full_disk / "old.csv"
    r = CliRunner().invoke(main, ["scores", str(runs), "--qrels", str(tmp_path / "qrels"), "--measures", "AP",
                                  "--format", "csv", "-o", str(target)])
    errors = [x for x in r.output.splitlines() if x.startswith("irscales: error:")]
    assert r.exit_code == 1 and errors == [f"irscales: error: {target}: cannot write it: No space left on device"]
    assert target.read_text() == OLD


def test_a_new_file_gets_the_permissions_open_would_give_and_an_old_one_keeps_its(tmp_path):
    new = tmp_path / "new.txt"
    mask = os.umask(0o022)
    try:
        write_atomic(new, "a\n")
    finally:
        os.umask(mask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o644
    old = tmp_path / "old.txt"
    old.write_text("x")
    old.chmod(0o600)
    write_atomic(old, b"y")
    assert old.read_bytes() == b"y" and stat.S_IMODE(old.stat().st_mode) == 0o600


def test_a_symbolic_link_keeps_pointing_at_its_file(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_a_failure_while_writing_leaves_the_old_file(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")

    def broken(fh):
        fh.write(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, broken)
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_a_device_is_written_in_place():
    # -o /dev/stdout: not replaced by a regular file (as root, a rename would replace the device)
    code = "from irscales._atomic import write_atomic; write_atomic('/dev/stdout', 'hello\\n')"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")})
    assert r.returncode == 0 and r.stdout == "hello\n"


def test_a_fifo_is_written_in_place_and_stays_a_fifo(tmp_path):
    import threading

    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    write_atomic(fifo, "through the pipe\n")
    reader.join(timeout=30)
    assert got == [b"through the pipe\n"] and stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_concurrent_writers_leave_the_umask_as_it_was():
    import threading

    from irscales._atomic import file_mode

    before = os.umask(0o022)
    modes = set()
    try:
        sys.setswitchinterval(1e-6)  # threads switch between the two umask calls as often as they can
        threads = [threading.Thread(target=lambda: modes.update(file_mode() for _ in range(20_000))) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert os.umask(0o022) == 0o022 and modes == {0o644}
    finally:
        sys.setswitchinterval(0.005)
        os.umask(before)


def test_an_entry_that_checks_itself_is_written_without_fsync(tmp_path, monkeypatch):
    """``durable=False`` (the parsed-run cache's entries, which carry their own checksum): renamed into place as
    ever, without the fsync that cost 10,000 small run files seconds (issue 49); the default still syncs."""
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real(fd))
    write_atomic(tmp_path / "a", b"entry", durable=False)
    assert (tmp_path / "a").read_bytes() == b"entry" and not synced
    write_atomic(tmp_path / "b", b"file")
    assert (tmp_path / "b").read_bytes() == b"file" and len(synced) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]  # no temporary file left

"""Issue 37 (4, 7): the command line's error boundary under hostile input and signals.

A 64 kB run tag made the one-line error take 16.5 s (``cli._messages._CALL`` backtracked over the word) and
printed all 64 kB; Ctrl-C during a first read said ``internal error (SystemError: CPUDispatcher(…))`` with
exit code 1. No timed assertions: a subprocess timeout fails a hang."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from irscales import cli
from irscales.cli._messages import as_flags, flat
from irscales._clipping import CLIP_KEEP, clip, clip_words
from irscales.data.trec import read_run
from irscales.data._trec_parse import TrecFormatError

SRC = Path(__file__).resolve().parents[1] / "src"
CLI = [sys.executable, "-c", "from irscales.cli import main; main()"]


def _env(**extra) -> dict:
    return {**os.environ, "PYTHONPATH": str(SRC), **extra}


@pytest.mark.parametrize("where", ["tag", "docno"])
def test_a_64_kb_token_gives_a_short_line_at_once(tmp_path, where):
    long = "x" * 65536
    run = tmp_path / "run"
    if where == "tag":
        run.write_text(f"1 Q0 d1 1 1.0 a\n1 Q0 d2 2 0.5 {long}\n")
    else:
        run.write_text(f"1 Q0 {long} 1 1.0 a\n1 Q0 {long} 2 0.5 a\n")
    (tmp_path / "qrels").write_text("1 0 d1 1\n")
    r = subprocess.run([*CLI, "scores", str(run), "--qrels", str(tmp_path / "qrels")], capture_output=True,
                       text=True, timeout=30, env=_env())  # took 16.5 s; raises TimeoutExpired on a hang
    lines = r.stderr.splitlines()
    assert r.returncode == 1 and len(lines) == 1 and lines[0].startswith(f"irscales: error: {run}:2: ")
    assert len(lines[0]) < 400 and f"'{'x' * (CLIP_KEEP - 1)}… (65,538 chars)" in lines[0]  # the word is quoted


def test_clip_and_the_flag_patterns_are_linear():
    assert clip("a" * 200) == "a" * 200 and clip("a" * 201) == "a" * CLIP_KEEP + "… (201 chars)"
    assert as_flags("read_qrels(..., negative='zero')") == "--negative zero"
    # issue 51's refusal names the error reachable at a depth: the command line's option, not the keyword
    assert (as_flags("reaches about 0.0453 within its budget: pass max_rel_error=0.0453 or more; and 1e-05.")
            == "reaches about 0.0453 within its budget: pass --max-rel-error 0.0453 or more; and 1e-05.")
    assert as_flags("wider than max_rel_error=1e-05.") == "wider than --max-rel-error 1e-05."
    code = ("from irscales.cli._messages import as_flags; "
            "s = as_flags('w' * 300000 + ' ' + 'v' * 300000 + '(..., x)'); print(len(s))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, env=_env())
    assert r.returncode == 0 and r.stdout.strip() == "600009"
    assert flat("a\n" + "b" * 1000) == "a " + "b" * CLIP_KEEP + "… (1,000 chars)"
    assert clip_words("a  " + "b" * 201) == "a  " + "b" * CLIP_KEEP + "… (201 chars)"


def test_library_errors_clip_long_words_too(tmp_path):
    run = tmp_path / "run"
    run.write_text(f"1 Q0 d1 1 1.0 a\n1 Q0 d2 2 0.5 {'x' * 65536}\n")
    with pytest.raises(TrecFormatError) as e:
        read_run(run)
    assert len(str(e.value)) < 300 and "… (65,538 chars)" in str(e.value)


@pytest.mark.parametrize("wrap", ["plain", "SystemError"])
def test_an_interrupt_is_exit_130_and_one_line(monkeypatch, wrap):
    def interrupted(*a, **k):
        if wrap == "plain":
            raise KeyboardInterrupt
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as e:  # what numba's dispatcher makes of it
            raise SystemError("CPUDispatcher(<function _tokenize>) returned a result with an exception set") from e

    monkeypatch.setattr(cli, "_evaluate", interrupted)
    from click.testing import CliRunner

    r = CliRunner().invoke(cli.main, ["scores", __file__, "--qrels", __file__])
    assert r.exit_code == 130 and r.output == "irscales: interrupted\n"


T08 = Path(os.environ.get("IRSCALES_SHARED", "/work/shared")) / "trec" / "T08"


def _interruptible() -> None:
    """SIGINT as a terminal gives it: a job started in the background of a non-interactive shell (a CI runner's
    ``cmd &``) inherits SIGINT ignored, and Python then installs no KeyboardInterrupt handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.data
@pytest.mark.skipif(not (T08 / "runs").is_dir(), reason=f"needs the TREC-8 runs in {T08} (IRSCALES_SHARED)")
def test_ctrl_c_during_a_first_read_is_exit_130(tmp_path):
    # a new session: SIGINT reaches the whole command (as Ctrl-C does its process group), and a hang is killed
    p = subprocess.Popen([*CLI, "scores", str(T08 / "runs"), "--qrels", str(T08 / "qrels.trec8.adhoc.gz"),
                          "--measures", "AP"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, env=_env(IRSCALES_CACHE=str(tmp_path / "cache")),
                         preexec_fn=_interruptible)
    entries = tmp_path / "cache" / "parsed-runs"
    try:
        deadline = time.monotonic() + 120
        while not (entries.is_dir() and any(entries.iterdir())) and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)  # the first runs are read (and cached): the interrupt falls in the read
        time.sleep(0.2)
        assert p.poll() is None, "the command ended before the interrupt"
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert (p.returncode, err) == (130, "irscales: interrupted\n"), out[-300:]

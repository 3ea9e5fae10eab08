"""scripts/tree_state.sh, the check that ``make test`` leaves the checkout as it found it (issue 52): it fails when
a run changes, adds or removes a file git sees — also a file that was already changed before the run — passes
for ignored files and a file written back as it was, and outside a git checkout says the check is skipped."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from irscales.paths import repo_root

ROOT = repo_root()
pytestmark = [pytest.mark.skipif(ROOT is None, reason="not a source checkout (no scripts/)"),
              pytest.mark.skipif(shutil.which("git") is None or shutil.which("bash") is None, reason="needs git and bash")]


def _checkout(path: Path, git: bool = True) -> Path:
    (path / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "tree_state.sh", path / "scripts" / "tree_state.sh")
    (path / "a.txt").write_text("a\n")
    (path / ".gitignore").write_text("ignored/\n.state\n")
    if git:
        cmd = ["git", "-C", str(path), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "start"]):
            subprocess.run(cmd + args, check=True, capture_output=True)
    return path


def _state(path: Path, mode: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(path / "scripts" / "tree_state.sh"), mode, str(path / ".state")],
                          capture_output=True, text=True)


def test_a_run_that_writes_nothing_git_sees_passes(tmp_path):
    repo = _checkout(tmp_path / "r")
    assert _state(repo, "save").returncode == 0
    (repo / "ignored").mkdir()
    (repo / "ignored" / "cache.npy").write_bytes(b"x")
    (repo / "a.txt").write_text("changed\n")
    (repo / "a.txt").write_text("a\n")  # written back as it was
    done = _state(repo, "check")
    assert done.returncode == 0 and done.stdout == done.stderr == ""


@pytest.mark.parametrize("change", ["modify", "add", "remove", "modify again"])
def test_a_run_that_changes_a_file_git_sees_fails_and_names_it(tmp_path, change):
    repo = _checkout(tmp_path / "r")
    if change == "modify again":  # dirty before the run: the content is compared, not only the status letter
        (repo / "a.txt").write_text("edited by hand\n")
    assert _state(repo, "save").returncode == 0
    if change in ("modify", "modify again"):
        (repo / "a.txt").write_text("rewritten by a test\n")
    elif change == "add":
        (repo / "new.csv").write_text("x\n")
    else:
        (repo / "a.txt").unlink()
    done = _state(repo, "check")
    assert done.returncode == 1
    assert ("new.csv" if change == "add" else "a.txt") in done.stdout
    assert "make test changed the checkout" in done.stderr


def test_outside_a_git_checkout_the_check_is_skipped_and_says_so(tmp_path):
    plain = _checkout(tmp_path / "p", git=False)
    assert _state(plain, "save").returncode == 0
    (plain / "a.txt").write_text("changed\n")
    done = _state(plain, "check")
    assert done.returncode == 0 and "not a git checkout" in done.stdout and "skipped" in done.stdout


def test_make_test_records_the_checkout_before_its_first_pytest_and_checks_it_after_its_last():
    text = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^test:.*\n((?:\t.*\n)+)", text, flags=re.M)
    assert recipe is not None
    lines = [ln for ln in recipe.group(1).splitlines() if ln.strip()]
    pytest_lines = [i for i, ln in enumerate(lines) if "-m pytest" in ln]
    save = [i for i, ln in enumerate(lines) if "tree_state.sh save" in ln]
    check = [i for i, ln in enumerate(lines) if "tree_state.sh check" in ln]
    assert pytest_lines and save and check
    assert save[0] < pytest_lines[0] and check[-1] > pytest_lines[-1] and lines[-1] == lines[check[-1]]

"""The README's promises, executed (issue 17): every Python block runs, the one-line export of a
simulated collection works, every ``make`` target it names exists (``make test`` and
``make reproduce`` themselves are what CI and the reproduction run), and the files it points at
are in the repository. The ``irscales`` commands of its shell blocks run in tests/test_cli.py."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from irscales.paths import repo_root

ROOT = repo_root()
pytestmark = pytest.mark.skipif(ROOT is None, reason="not a source checkout (no README.md)")
README = (ROOT / "README.md").read_text() if ROOT else ""


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", README, flags=re.M | re.S)


def _export_command() -> str:
    cmds = re.findall(r'`(python -c "from irscales[\w.]* import load_preset;[^`]*)`', README)
    assert len(cmds) == 1, "the README's one-line export of a simulated collection"
    return cmds[0]


def test_export_one_liner_and_python_blocks_run(tmp_path, monkeypatch):
    args = shlex.split(_export_command())
    assert args[0] == "python"
    r = subprocess.run([sys.executable, *args[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "qrels.txt").is_file() and len(list((tmp_path / "runs").iterdir())) == 4
    blocks = _blocks("python")
    assert len(blocks) >= 2
    monkeypatch.chdir(tmp_path)  # the blocks read runs/ and qrels.txt, as the one-liner writes them
    namespace: dict = {}
    for i, code in enumerate(blocks):
        exec(compile(code, f"README.md python block {i + 1}", "exec"), namespace)  # noqa: S102
    assert namespace["ap"].shape == namespace["ap_ranked"].shape == (50, 4)  # (topics, systems)


def _makefile_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([a-zA-Z][\w-]*):", text, flags=re.M))


def test_every_make_command_names_a_target():
    named = re.findall(r"\bmake ([a-z][\w-]*)", README)
    assert {"test", "reproduce", "data"} <= set(named)
    missing = sorted(set(named) - _makefile_targets())
    assert not missing, f"README names make targets the Makefile lacks: {missing}"
    # `make reproduce FULL=False` passes a variable the Makefile reads
    assert "make reproduce FULL=False" in README and re.search(r"^FULL \?= ", (ROOT / "Makefile").read_text(), re.M)


def test_files_the_readme_points_at_exist():
    paths = set(re.findall(r"`((?:data|docs|figures|notebooks|benchmarks|tests|src)/[\w./-]*)`", README))
    paths |= {"environment.yml", "requirements.lock"}
    generated = {"figures/REPORT.md", "figures/public/", "figures/executed/", "data/cache/", "data/external/"}
    missing = sorted(p for p in paths - generated if not (ROOT / p.rstrip("/")).exists()
                     and not list(ROOT.glob(p)))
    assert not missing, f"README points at missing files: {missing}"
    assert "../shared" not in README.replace("`../shared` beside the checkout", "")


def test_module_map_matches_the_tree():
    """Every room of src/irscales is in the README's layout block, and every room named there exists."""
    block = README[README.index("src/irscales/ "):README.index("notebooks/        one notebook")]
    pkg = Path(__file__).resolve().parents[1] / "src" / "irscales"
    rooms = {p.name + ("/" if p.is_dir() else "") for p in pkg.iterdir()
             if p.name != "__init__.py" and not p.name.startswith((".", "__pycache__"))}
    named = set(re.findall(r"^\s{2}(\w+(?:\.py|/))", block, flags=re.M))
    named |= set(re.findall(r"^\s{2}\w+\.py, (\w+\.py)", block, flags=re.M))
    assert rooms <= named, f"README layout misses {sorted(rooms - named)}"
    assert named <= rooms, f"README layout names {sorted(named - rooms)}, which do not exist"

"""scripts/figures_match.py (issue 52): a committed table that the notebooks no longer write byte for byte fails
``make test``'s fresh-clone pass, naming the file; tables the repository does not commit are ignored."""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "figures_match.py"


def _run(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


def test_same_bytes_pass_a_stale_table_fails_by_name(tmp_path):
    written, committed = tmp_path / "written", tmp_path / "committed"
    for root in (written, committed):
        (root / "cutoffs").mkdir(parents=True)
        (root / "cutoffs" / "t.csv").write_text("a,b\n1,2\n")
    (written / "cutoffs" / "only_written.csv").write_text("x\n1\n")  # not committed: ignored
    r = _run(written, committed)
    assert r.returncode == 0 and "the 1 committed tables" in r.stdout
    (committed / "cutoffs" / "t.csv").write_text("a,b\n1,2.0\n")
    r = _run(written, committed)
    assert r.returncode == 1 and "figures/cutoffs/t.csv" in r.stderr and "1 of 1" in r.stderr


def test_nothing_written_is_not_an_error_and_bad_usage_is(tmp_path):
    assert _run(tmp_path / "absent", tmp_path).returncode == 0
    assert _run().returncode == 2

"""The HTML report renders in a real browser: figures decode, the summary is there, a screenshot is saved.

Skipped when no Chromium is installed (``make test-browser`` installs Debian's chromium and runs it).
"""

from __future__ import annotations

import csv
import re
import shutil
import subprocess

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest

from irscales import published, report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--allow-file-access-from-files", "--virtual-time-budget=5000"]


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (run `make test-browser` to install it)")
def test_report_renders_in_headless_chromium(tmp_path):
    pub = tmp_path / "pub"
    pub.mkdir()
    with (pub / "mm23.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(published.COLUMNS)
        w.writerow(["t1/a", "Table 1", "p. 3", "0.5", "exhaustive", ""])
    figs = tmp_path / "figs"
    (figs / "mm23").mkdir(parents=True)
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [0, 1])
    fig.savefig(figs / "mm23" / "example.png")
    plt.close(fig)
    _, page = report.build(figs, pub)
    profile = tmp_path / "profile"
    dom = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    assert "id=\"summary\"" in dom and "1 published items" in dom
    m = re.search(r'data-images-loaded="(\d+)/(\d+)"', dom)
    assert m and m.group(1) == m.group(2) == "1", dom[:500]
    shot = tmp_path / "report.png"
    subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--window-size=1200,900",
                    f"--screenshot={shot}", page.as_uri()], capture_output=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 1000

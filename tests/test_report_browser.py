"""The HTML report renders in a real browser: figures decode, the landing cards carry REPORT.md's
numbers, the differs table sorts, and a screenshot of the first screen is saved.

Skipped when no Chromium is installed (``make test-browser`` installs Debian's chromium and runs it).
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest

from irscales.papers import published
from irscales.papers import report
from irscales.paths import published_dir, repo_root

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--allow-file-access-from-files", "--virtual-time-budget=10000"]
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (run `make test-browser` to install it)")


def _dom(page, profile) -> str:
    return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=180).stdout


def _screenshot(page, profile, shot) -> None:
    subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--window-size=1280,900",
                    f"--screenshot={shot}", page.as_uri()], capture_output=True, timeout=180)


def _card_numbers(dom: str) -> dict[str, dict[str, int]]:
    cards = re.findall(r'<div class="card" data-paper="(\w+)".*?</table>', dom, flags=re.S)
    bodies = re.findall(r'<div class="card" data-paper="\w+".*?</table>', dom, flags=re.S)
    return {p: {s: int(n) for s, n in re.findall(r'data-status="([^"]+)">(\d+)<', b)} for p, b in zip(cards, bodies)}


def _md_numbers(md: str) -> dict[str, dict[str, int]]:
    out = {}
    for p, name in report.PAPERS.items():
        m = re.search(rf"^- \*\*{re.escape(name)}\*\* — (.*)$", md, flags=re.M)
        if m:
            n = [int(x) for x in re.findall(r"\b(\d+)\b", m.group(1))]
            out[p] = dict(zip(["items", *report.STATUSES], n))
    return out


@needs_chromium
def test_report_renders_in_headless_chromium(tmp_path):
    pub = tmp_path / "pub"
    pub.mkdir()
    with (pub / "mm23.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(published.COLUMNS)
        w.writerow(["table1/a/x", "Table 1, row a, column x", "p. 3", "0.5", "exhaustive", ""])
        w.writerow(["table1/b/x", "Table 1, row b, column x", "p. 3", "0.25", "exhaustive", ""])
        w.writerow(["fig1/n", "Figure 1", "p. 4", "12", "exhaustive", ""])
    figs = tmp_path / "figs"
    (figs / "mm23").mkdir(parents=True)
    published.compare("mm23", {"table1/a/x": 0.5, "table1/b/x": 0.3, "fig1/n": 15}, route="exhaustive",
                      notes={"table1/b/x": "the paper rounds"}, published=published.load("mm23", pub / "mm23.csv")
                      ).save(figs / "mm23" / "published_vs_reproduced.csv")
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [0, 1])
    fig.savefig(figs / "mm23" / "fig1_example.png")
    plt.close(fig)
    md, page = report.build(figs, pub)
    dom = _dom(page, tmp_path / "profile")
    assert 'id="summary"' in dom and "3 published items" in dom
    m = re.search(r'data-images-loaded="(\d+)/(\d+)"', dom)
    assert m and m.group(1) == m.group(2) == "1", dom[:500]
    assert _card_numbers(dom) == _md_numbers(md.read_text()) != {}
    assert _card_numbers(dom)["mm23"]["differs"] == 2
    assert 'id="mm23-table1"' in dom and 'id="mm23-fig1"' in dom and "the paper rounds" in dom
    # the differs view sorts by size: click "relative difference" twice (descending)
    click = ('<script>window.addEventListener("load",function(){var th=document.querySelectorAll('
             '"#differs-table th")[4];th.click();th.click();});</script></body>')
    sorted_page = page.with_name("sorted.html")
    sorted_page.write_text(page.read_text().replace("</body>", click))
    sizes = [float(v) for v in re.findall(r'<td data-v="([^"]+)"', _dom(sorted_page, tmp_path / "profile"))]
    assert sizes == [0.25, 0.2]  # 15 vs 12, then 0.3 vs 0.25: largest first
    shot = tmp_path / "report.png"
    _screenshot(page, tmp_path / "profile", shot)
    assert shot.exists() and shot.stat().st_size > 1000


@pytest.mark.data
@needs_chromium
def test_repository_report_loads_every_figure_and_saves_the_first_screen(tmp_path):
    """The real report, built from a copy of the repository's figures/: every image decodes, every
    card equals REPORT.md's summary line. The screenshot of the first screen is written to
    $IRSCALES_SCREENSHOT when set (``make test-browser`` refreshes figures/report_first_screen.png),
    else to a temporary file, so the test suite never rewrites tracked files."""
    root = repo_root()
    if root is None or not any(published_dir().glob("*.csv")):
        pytest.skip("not a source checkout with published files")
    for p in report.PAPERS:  # build from copies: a test must not rewrite the repository's report
        src = root / "figures" / p
        if src.is_dir():
            shutil.copytree(src, tmp_path / p, ignore=shutil.ignore_patterns("*.pdf"))
    md, page = report.build(tmp_path)
    dom = _dom(page, tmp_path / "profile")
    m = re.search(r'data-images-loaded="(\d+)/(\d+)"', dom)
    assert m and m.group(1) == m.group(2) and int(m.group(2)) > 0, m and m.group(0)
    assert _card_numbers(dom) == _md_numbers(md.read_text())
    assert set(_card_numbers(dom)) == {p for p in report.PAPERS if (published_dir() / f"{p}.csv").exists()}
    shot = Path(os.environ.get("IRSCALES_SCREENSHOT") or tmp_path / "report_first_screen.png")
    _screenshot(page, tmp_path / "profile", shot)
    assert shot.exists() and shot.stat().st_size > 10_000

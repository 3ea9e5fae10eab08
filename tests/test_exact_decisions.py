"""Issue 37 item 5: a rational measure decides on exact values, so that its original and its interval scale
agree where they must. RBP with p = 1/2 is an exact affine image of φ; at depth 60 the runs it tells apart
by 2^-60 have the same double."""

from __future__ import annotations

from fractions import Fraction
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from irscales import measures as M
from irscales.cli import main
from irscales.evaluation import evaluate
from irscales.ipso.corroborate import corroborate

DEPTH = 60


@pytest.fixture(scope="module")
def near(tmp_path_factory) -> tuple[Path, Path, Path]:
    """Runs A and B over 3 topics, every document of B relevant, A missing rank 60: RBP_p05 is 1 - 2^-59
    for A and 1 - 2^-60 for B exactly; as doubles both are 1.0."""
    d = tmp_path_factory.mktemp("near")
    topics = range(1, 4)
    (d / "qrels").write_text("".join(f"{t} 0 d{i} 1\n" for t in topics for i in range(DEPTH)))
    for name, miss in (("A", True), ("B", False)):
        (d / name).write_text("".join(f"{t} Q0 {'x' if miss and r == DEPTH - 1 else f'd{r}'} {r + 1} {100 - r} {name}\n"
                                      for t in topics for r in range(DEPTH)))
    return d / "A", d / "B", d / "qrels"


def _cli(args) -> str:
    r = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.stdout


def test_floats_lose_the_difference(near):
    a, b, q = near
    ev = evaluate(q, [a, b], "RBP_p05", depth=DEPTH)
    floats = ev.values("RBP_p05").to_numpy()
    assert (floats[:, 0] == floats[:, 1]).all()  # the premise: as doubles A and B are tied everywhere
    exact = ev.values("RBP_p05", exact=True).to_numpy()
    assert all(x < y for x, y in zip(exact[:, 0], exact[:, 1]))
    assert exact[0, 1] - exact[0, 0] == Fraction(1, 2**DEPTH)


def test_compare_does_not_change(near):
    a, b, q = near
    f = pd.read_csv(StringIO(_cli(["compare", a, b, "--qrels", q, "--depth", DEPTH, "--measures", "RBP_p05",
                                   "--format", "csv"])), comment="#")
    assert len(f) == 4 and not f["changed"].any()
    assert (f["p_original"] == f["p_interval"]).all()  # an affine image: the same statistics


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign", "randomisation", "tukey"])
def test_report_marks_no_difference(near, test):
    a, b, q = near
    tab = evaluate(q, [a, b], "RBP_p05", depth=DEPTH, ranked=True).compare(test=test, baseline="A")
    f = tab.to_frame()
    assert not f["differs"].any()
    orig, iv = (f[f.scale == s].set_index("system") for s in ("original", "interval"))
    assert (orig["better_than"] == iv["better_than"]).all() and (orig["baseline_mark"] == iv["baseline_mark"]).all()
    out = _cli(["report", a, b, "--qrels", q, "--depth", DEPTH, "--measures", "RBP_p05", "--test", test])
    assert "≠" not in out.split("\n\n")[0]


def test_corroborate_on_exact_values():
    # B ahead of A by 2^-60 on every topic: the t test sees constant non-zero differences, and the effect's
    # sign is B's way although the float effect is 0
    a = np.ones((3, DEPTH), dtype=np.int8)
    a[:, -1] = 0
    b = np.ones((3, DEPTH), dtype=np.int8)
    c = corroborate(a, b, M.RBP(p=Fraction(1, 2)), DEPTH, test="ttest", always_ipso=True)
    assert c.effect == 0.0 and c.way == 1 and c.pvalue < 0.05
    assert c.lines()[-1].startswith("report: B is better than A")

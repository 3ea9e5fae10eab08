"""MM23 §3 reporting rule (irscales.ipso.corroborate): † and ‡, and the one Wilcoxon signed-rank
test (the metric tests are irscales.stats._significance's)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from irscales import ipso
from irscales.stats import _significance as S
from irscales.measures import AP, P


def test_markers():
    rng = np.random.default_rng(1)
    a = (rng.random((40, 10)) < 0.2).astype(int)
    b = np.maximum(a, (rng.random((40, 10)) < 0.4).astype(int))  # B ⪰ A on every topic
    res = ipso.corroborate(a, b, P(k=10), 10, test="t")
    assert res.pvalue < 0.05 and res.ipso is not None and res.ipso.ns == 0
    assert res.marker == "†‡"
    same = ipso.corroborate(a, a, AP(), 10, rb=10, test="sign")
    assert same.marker == "" and same.ipso is None and same.pvalue == 1.0
    with pytest.raises(ValueError, match="unknown test"):
        ipso.corroborate(a, b, AP(), 10, rb=10, test="z")


def _samples_with_ties_and_zeros(n_samples: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    for _ in range(n_samples):
        T = int(rng.integers(3, 70))
        yield rng.integers(0, 6, T) / 5, rng.integers(0, 6, T) / 5  # many ties, many zero differences


@pytest.mark.parametrize("test, fn", [("signrank", S.signed_rank_test), ("ttest", S.paired_t_test),
                                      ("sign", S.sign_test)])
def test_metric_tests_are_the_significance_module(test, fn):
    # issue 18: `irscales ipso` (corroboration) and `irscales compare` (significance) used two
    # signed-rank implementations whose p-values differed on 610 of 2,000 samples like these
    for a, b in _samples_with_ties_and_zeros(300):
        p = float(fn(np.column_stack([a, b])).pvalue[0])
        assert ipso.metric_test(a, b, test) == (1.0 if np.isnan(p) else p)
        assert ipso.metric_test(a, b, test) == ipso.metric_test(b, a, test)  # two-tailed


def test_signed_rank_matches_scipy_normal_approximation_when_n_is_large():
    # n > 15 non-zero differences: normal approximation, tie-corrected variance, zeros dropped, no
    # continuity correction = scipy's wilcoxon(zero_method='wilcox', correction=False, method='approx').
    # Multiples of 1/8 are exact in binary, so float ties are true ties for both.
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(200):
        T = int(rng.integers(20, 80))
        a, b = rng.integers(0, 9, T) / 8, rng.integers(0, 9, T) / 8
        if (a != b).sum() <= 15:
            continue
        want = stats.wilcoxon(a, b, zero_method="wilcox", correction=False, method="approx").pvalue
        assert ipso.metric_test(a, b, "signrank") == pytest.approx(want, rel=1e-9)
        checked += 1
    assert checked > 150


def test_signed_rank_exact_with_ties_and_zeros_by_enumeration():
    # n <= 15: exact p over all 2^n sign patterns of the tied (average) ranks, zeros dropped
    from itertools import product

    rng = np.random.default_rng(5)
    for _ in range(40):
        T = int(rng.integers(2, 13))
        a, b = rng.integers(0, 4, T) / 4, rng.integers(0, 4, T) / 4
        d = (a - b)[a != b]
        if len(d) == 0:
            assert ipso.metric_test(a, b, "signrank") == 1.0
            continue
        r = stats.rankdata(np.abs(d))
        w = min(r[d > 0].sum(), r[d < 0].sum())
        tail = sum(1 for signs in product((0, 1), repeat=len(d)) if (r * np.array(signs)).sum() <= w + 1e-9)
        assert ipso.metric_test(a, b, "signrank") == pytest.approx(min(1.0, 2 * tail / 2 ** len(d)), rel=1e-12)


def test_compare_and_ipso_commands_give_the_same_wilcoxon_p(tmp_path):
    from click.testing import CliRunner

    from irscales.cli import main

    rng = np.random.default_rng(11)
    q, ra, rb = [], [], []
    for t in range(1, 41):
        q += [f"{t} 0 d{i} {int(rng.random() < 0.4)}" for i in range(8)] + [f"{t} 0 rel{t} 1"]
        for lines, tag in ((ra, "A"), (rb, "B")):
            docs = rng.permutation(8)[:5]
            lines += [f"{t} Q0 d{d} {k + 1} {5 - k} {tag}" for k, d in enumerate(docs)]
    (tmp_path / "q").write_text("\n".join(q) + "\n")
    (tmp_path / "a").write_text("\n".join(ra) + "\n")
    (tmp_path / "b").write_text("\n".join(rb) + "\n")
    files = [str(tmp_path / "a"), str(tmp_path / "b")]
    cmp = CliRunner().invoke(main, ["compare", *files, "--qrels", str(tmp_path / "q"), "--depth", "5",
                                    "--measure", "P@5", "--format", "csv"])
    ips = CliRunner().invoke(main, ["ipso", *files, str(tmp_path / "q"), "--depth", "5", "--metric", "P@5",
                                    "--test", "wilcoxon", "--alpha", "0.999"])
    assert cmp.exit_code == 0 and ips.exit_code == 0, cmp.output + ips.output
    import io as _io

    import pandas as pd

    frame = pd.read_csv(_io.StringIO(cmp.output))
    p_compare = float(frame.loc[frame["test"] == S.TEST_LABELS["signrank"], "p_original"].iloc[0])
    p_ipso = float(next(ln for ln in ips.output.splitlines() if ln.startswith("metric test p")).split("=")[1].split()[0])
    assert p_compare == pytest.approx(p_ipso, rel=1e-3)  # ipso prints 4 significant digits
    assert 0 < p_compare < 1


def test_test_names_are_the_significance_keys_with_the_cli_aliases():
    assert set(ipso.METRIC_TESTS) <= set(S.TESTS)
    assert ipso.test_key("t") == "ttest" and ipso.test_key("wilcoxon") == "signrank"
    a, b = next(_samples_with_ties_and_zeros(1, seed=2))
    assert ipso.metric_test(a, b, "wilcoxon") == ipso.metric_test(a, b, "signrank")
    res = ipso.corroborate(np.eye(5, dtype=int), np.eye(5, dtype=int)[::-1], P(k=5), 5, test="t")
    assert res.test == "ttest" and res.lines()[0].endswith("t test, alpha=0.05")
    with pytest.raises(ValueError, match="unknown test"):
        ipso.test_key("ranksum")

"""Tests of irscales.figures (FFF21 Figs. 3–5 "all possible values" panels and tie summaries).

Golden values are hand-computed from binomial counts: P on N runs takes k/N on C(N, k) runs; RR
takes 1/k on the 2^{N−k} runs whose first relevant document is at rank k, and 0 on one run.
"""

from __future__ import annotations

import collections
import itertools
from fractions import Fraction

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from irscales import enumeration as E  # noqa: E402
from irscales import measures as M  # noqa: E402
from irscales import figures as plots  # noqa: E402
from irscales.figures import fit_tick_labels, tick_label_overlaps, write_figure  # noqa: E402
from irscales.stats import _anova as anova  # noqa: E402


def _scale(m, N):
    # recall-base measures on a topic with RB = N (the scale of AP then is that of SP/N)
    return E.scale(m, N, rb=N if m.needs_rb else None, cache=False, workers=1)


def _panel(scale, **kw):
    fig, ax = plt.subplots()
    line = plots.all_values(ax, scale, **kw)
    x, y = line.get_xdata(), line.get_ydata()
    labels = [t.get_text() for t in ax.get_xticklabels()]
    plt.close(fig)
    return np.asarray(x), np.asarray(y), labels


# ------------------------------------------------------------------------------- run positions


def test_run_positions_every_run_when_few():
    assert np.array_equal(plots.run_positions(5, 10), np.array([0, 0.25, 0.5, 0.75, 1.0]))
    assert np.array_equal(plots.run_positions(1, 10), np.array([0.0]))


def test_run_positions_sampled_keeps_the_ends():
    q = plots.run_positions(2**30, 101)
    assert len(q) == 101 and q[0] == 0.0 and q[-1] == 1.0 and np.all(np.diff(q) > 0)


@pytest.mark.parametrize("n, k", [(0, 10), (-3, 10), (2.5, 10), (10, 1), (10, 2.0)])
def test_run_positions_bad_input(n, k):
    with pytest.raises(ValueError, match="run_positions"):
        plots.run_positions(n, k)


# ----------------------------------------------------------------------------- hand-computed


def test_precision_N3_hand_computed():
    # 8 runs: P = 0 once, 1/3 three times, 2/3 three times, 1 once (C(3, k))
    x, y, labels = _panel(_scale(M.P(), 3))
    assert np.allclose(x, np.arange(8) / 7)
    assert np.allclose(y, [0, 1 / 3, 1 / 3, 1 / 3, 2 / 3, 2 / 3, 2 / 3, 1])
    assert labels == ["0%", "25%", "50%", "75%", "100%"]


def test_annotation_counts_values_and_runs():
    fig, ax = plt.subplots()
    plots.all_values(ax, _scale(M.DCG(base=2), 5))
    assert [t.get_text() for t in ax.texts] == ["24 values\n32 runs"]
    plots.all_values(ax, _scale(M.P(), 11), annotate=False)
    assert len(ax.texts) == 1
    plt.close(fig)


def test_rr_N4_hand_computed():
    # 16 runs: 0 (1 run), 1/4 (1), 1/3 (2), 1/2 (4), 1 (8)
    _, y, _ = _panel(_scale(M.RR(), 4))
    assert np.allclose(y, [0, 1 / 4] + [1 / 3] * 2 + [1 / 2] * 4 + [1] * 8)


class _RunListScale:
    """Stand-in with the quantile rule of Scale.quantiles (run ⌊q·(n − 1)⌋) over given values."""

    def __init__(self, values):
        self.values = np.sort(np.asarray(values, dtype=float))
        self.n_runs, self.N = len(self.values), 0
        self.n_distinct = len(np.unique(self.values))
        self.measure = M.P()

    def quantiles(self, q):
        return self.values[np.floor(np.asarray(q) * (self.n_runs - 1)).astype(np.int64)]

    def iter_chunks(self):
        u, c = np.unique(self.values, return_counts=True)
        yield u, c


@pytest.mark.parametrize("n", [23, 1440])
def test_every_run_at_its_own_position(n):
    # with n = 1440 runs, (i/1439)·1439 falls just below i for 166 of the i: a plain
    # quantiles(i/(n − 1)) would draw run i − 1's value at run i's position
    q = np.arange(n) / (n - 1)
    assert np.any(np.floor(q * (n - 1)) != np.arange(n))  # the trap is real for this n
    _, y, _ = _panel(_RunListScale(np.arange(n)), max_points=2001)
    assert np.array_equal(y, np.arange(n))


def test_every_run_at_its_own_position_P10():
    s = _scale(M.P(), 10)
    _, y, _ = _panel(s, max_points=2001)
    assert np.array_equal(y, np.repeat(s.values, s.counts))


# ----------------------------------------------------------------------------- properties

MEASURES = [M.P(), M.RR(), M.AP(), M.RBP(p=0.5), M.RBP(p=0.3), M.RBP(p=0.8), M.DCG(base=2), M.DCG(base=10)]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(MEASURES), st.integers(1, 9))
def test_panel_is_the_sorted_brute_force_values(m, N):
    """Cross-check: every run drawn, in order, equals the measure on all 2^N runs sorted."""
    rel = E.runs_from_ids(np.arange(2**N), N)
    want = np.sort(m(rel, rb=N) if m.needs_rb else m(rel))
    x, y, _ = _panel(_scale(m, N))
    assert len(y) == 2**N
    assert np.allclose(y, want, rtol=1e-12, atol=1e-15)
    assert np.all(np.diff(x) > 0) and x[0] == 0.0 and x[-1] == 1.0


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(MEASURES), st.integers(6, 12), st.integers(2, 40))
def test_sampled_panel_monotone_and_on_the_scale(m, N, k):
    s = _scale(m, N)
    x, y, _ = _panel(s, max_points=k)
    assert len(y) == min(k, 2**N)
    assert np.all(np.diff(y) >= 0)
    assert y[0] == s.values[0] and y[-1] == s.values[-1]
    assert np.all(np.isin(y, s.values))


# ------------------------------------------------------------------------------- tie summary


def test_tie_summary_precision_N4_hand_computed():
    t = plots.tie_summary(_scale(M.P(), 4))  # counts 1, 4, 6, 4, 1
    assert t["n_runs"] == 16 and t["n_distinct"] == 5
    assert t["n_tied_values"] == 3 and t["runs_in_ties"] == 14 and t["largest_tie"] == 6
    assert t["tie_sizes"] == {4: 2, 6: 1}
    assert t["tied_value_range"] == (0.25, 0.75)


def test_tie_summary_bins_precision_N4():
    # values 0, 1/4, 1/2, 3/4, 1 (ties at 1/4, 1/2, 3/4) in two bins [0, 1/2) and [1/2, 1]
    t = plots.tie_summary(_scale(M.P(), 4), bins=2)
    assert t["by_bin"] == [{"lo": 0.0, "hi": 0.5, "n_values": 2, "n_tied_values": 1},
                           {"lo": 0.5, "hi": 1.0, "n_values": 3, "n_tied_values": 2}]
    with pytest.raises(ValueError, match="bins"):
        plots.tie_summary(_scale(M.P(), 4), bins=0)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(MEASURES), st.integers(1, 9), st.integers(1, 12))
def test_tie_summary_bins_add_up(m, N, k):
    t = plots.tie_summary(_scale(m, N), bins=k)
    assert len(t["by_bin"]) == k or (t["n_distinct"] == 1 and len(t["by_bin"]) == 1)
    assert sum(b["n_values"] for b in t["by_bin"]) == t["n_distinct"]
    assert sum(b["n_tied_values"] for b in t["by_bin"]) == t["n_tied_values"]


def test_tie_summary_no_ties_rbp08():
    t = plots.tie_summary(_scale(M.RBP(p=0.8), 8))
    assert t["n_tied_values"] == 0 and t["runs_in_ties"] == 0 and t["largest_tie"] == 1
    assert t["tie_sizes"] == {} and t["tied_value_range"] is None and t["n_distinct"] == 256


def test_tie_summary_dcg_b02_ties_are_rank1_rank2_swaps():
    # JK discount log2: ranks 1 and 2 both weigh 1, so (1,0,…) and (0,1,…) tie: 2^{N−2} pairs
    t = plots.tie_summary(_scale(M.DCG(base=2), 6))
    assert t["tie_sizes"] == {2: 16} and t["n_distinct"] == 3 * 2**4


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([M.P(), M.RR(), M.AP(), M.RBP(p=0.3), M.RBP(p=0.8)]), st.integers(1, 9))
def test_tie_summary_matches_exact_brute_force(m, N):
    rel = E.runs_from_ids(np.arange(2**N), N)
    cnt = collections.Counter(m.exact(rel, rb=N).tolist() if m.needs_rb else m.exact(rel).tolist())
    mult = collections.Counter(c for c in cnt.values() if c > 1)
    t = plots.tie_summary(_scale(m, N))
    assert t["n_distinct"] == len(cnt) and t["n_runs"] == 2**N
    assert t["tie_sizes"] == dict(mult)
    assert t["runs_in_ties"] == sum(c for c in cnt.values() if c > 1)
    tied = sorted(v for v, c in cnt.items() if c > 1)
    if tied:
        assert t["tied_value_range"] == pytest.approx((float(tied[0]), float(tied[-1])))
        assert all(isinstance(v, Fraction) for v in tied)
    else:
        assert t["tied_value_range"] is None


# ---------------------------------------------------------------------------- grid and saving


def test_grid_layout_and_labels():
    sc = {"P": {3: _scale(M.P(), 3), 5: _scale(M.P(), 5)}, "RR": {5: _scale(M.RR(), 5), 3: _scale(M.RR(), 3)}}
    fig = plots.all_values_grid(sc, title="test grid")
    axes = np.array(fig.axes).reshape(2, 2)
    assert [a.get_title() for a in axes.flat] == ["P, N = 3", "P, N = 5", "RR, N = 3", "RR, N = 5"]
    assert axes[0, 0].get_ylabel() == "P" and axes[1, 0].get_ylabel() == "RR" and axes[0, 1].get_ylabel() == ""
    assert "fraction of runs" in axes[1, 1].get_xlabel() and axes[0, 1].get_xlabel() == ""
    assert fig._suptitle.get_text() == "test grid"
    plt.close(fig)


def test_grid_rejects_rows_with_different_N():
    with pytest.raises(ValueError, match="same N"):
        plots.all_values_grid({"P": {3: _scale(M.P(), 3)}, "RR": {4: _scale(M.RR(), 4)}}, title="x")
    with pytest.raises(ValueError, match="no scales"):
        plots.all_values_grid({}, title="x")


def test_not_a_scale_is_a_clear_error():
    fig, ax = plt.subplots()
    with pytest.raises(TypeError, match="expected an irscales.enumeration.Scale"):
        plots.all_values(ax, [0.1, 0.2])
    with pytest.raises(TypeError, match="tie_summary"):
        plots.tie_summary(np.arange(3))
    plt.close(fig)


def test_save_figure_writes_reproducible_files(tmp_path):
    def make():
        fig = plots.all_values_grid({"P": {4: _scale(M.P(), 4)}}, title="save test")
        return fig

    p1 = plots.write_figure(make(), tmp_path / "a", "fig")
    p2 = plots.write_figure(make(), tmp_path / "b", "fig")
    assert [p.name for p in p1] == ["fig.png", "fig.pdf"]
    assert all(p.stat().st_size > 0 for p in p1)
    assert p1[1].read_bytes() == p2[1].read_bytes()  # PDF without a creation date
    assert p1[0].read_bytes() == p2[0].read_bytes()


@pytest.mark.parametrize("stem, formats", [("", ("png",)), ("a/b", ("png",)), ("ok", ("jpg",)), ("ok", ())])
def test_save_figure_bad_arguments(tmp_path, stem, formats):
    fig = plt.figure()
    with pytest.raises(ValueError, match="save_figure"):
        plots.write_figure(fig, tmp_path, stem, formats)
    plt.close(fig)


def test_colliding_tick_labels_are_rotated_until_none_overlap(tmp_path):
    fig, ax = plt.subplots(figsize=(3, 2))
    names = [f"measure {i} vs measure {i + 1}" for i in range(12)]
    ax.plot(range(12), range(12))
    ax.set_xticks(range(12), names)
    assert tick_label_overlaps(fig)  # the crowded axis really collides before the fix
    fit_tick_labels(fig)
    assert tick_label_overlaps(fig) == []
    assert {t.get_rotation() for t in ax.get_xticklabels()} <= {45.0, 90.0}
    fig2, ax2 = plt.subplots(figsize=(3, 2))
    ax2.set_xticks(range(3), ["a", "b", "c"])
    fit_tick_labels(fig2)
    assert {t.get_rotation() for t in ax2.get_xticklabels()} == {0.0}  # labels that fit stay horizontal
    write_figure(fig2, tmp_path, "ok", formats=("png",))


def test_fer17_main_effects_and_interaction_plots_have_no_overlapping_labels():
    measures = ["AP", "P@10", "R-prec", "RBP", "nDCG", "nDCG@20", "ERR"]
    pairs = [f"{a} vs {b}" for a, b in itertools.combinations(measures, 2)]
    sets = ["T07", "T08", "T09", "T10", "T13", "T14", "T15"]
    rows = [{"pair": p, "corpus": ["disks45", "wt10g", "gov2"][k % 3], "topic_set": s, "tau": (i * 7 + k) % 11 / 11}
            for i, p in enumerate(pairs) for k, s in enumerate(sets)]
    data = pd.DataFrame(rows)
    for fig in (anova.main_effects_plot(data, "tau", ["pair", "corpus", "topic_set"], title="simulated"),
                anova.interaction_plot(data, "tau", "topic_set", "pair", title="simulated")):
        fit_tick_labels(fig)
        assert tick_label_overlaps(fig) == []
        plt.close(fig)


def test_write_figure_shows_inline_only_in_a_notebook(tmp_path, monkeypatch):
    import base64
    import io

    import IPython.display
    from PIL import Image

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, raw=False: shown.append((obj, raw)))

    made = []

    def make():
        fig, ax = plt.subplots(figsize=(4, 3))
        ax.plot([0, 1], [0, 1])
        made.append(fig.number)
        return fig

    assert not plots.in_notebook()  # pytest is no Jupyter kernel: files only
    write_figure(make(), tmp_path, "quiet", formats=("png",))
    assert shown == []
    monkeypatch.setattr(plots, "in_notebook", lambda: True)
    full = write_figure(make(), tmp_path, "shown", formats=("png",))
    write_figure(make(), tmp_path, "again", formats=("png",))
    write_figure(make(), tmp_path, "forced_off", formats=("png",), show=False)
    assert len(shown) == 2 and all(raw for _, raw in shown)
    # image/png only: nbval skips it, so whether a figure is shown never changes what nbval compares
    assert all(list(obj) == ["image/png"] for obj, _ in shown)
    png = base64.b64decode(shown[0][0]["image/png"])
    assert png == base64.b64decode(shown[1][0]["image/png"])  # deterministic bytes
    with Image.open(io.BytesIO(png)) as small, Image.open(full[0]) as big:
        assert small.mode == "P" and "Software" not in small.info
        # the same (tight) figure at INLINE_DPI instead of the file's 150 dpi
        assert small.width == pytest.approx(big.width * plots.INLINE_DPI / 150, abs=3)
    assert len(png) < full[0].stat().st_size
    assert not set(made) & set(plt.get_fignums())  # shown or not, every written figure is closed

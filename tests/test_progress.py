"""Progress on stderr (issue 36 item 2): auto means "stderr is a terminal"; a long count advances its bars while
it works (not once at the end); nothing is written when stderr is not a terminal."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest
import tqdm

from irscales import _progress as progress
from irscales.enumeration import counting, meet


class _Stream(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


class _Recorded(tqdm.tqdm):
    """A tqdm bar that records its updates (with the bar's count before each)."""

    bars: list = []

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.shown = not kw.get("disable", False)  # close() disables a bar: remember what it was
        self.steps: list[tuple[int, int]] = []
        _Recorded.bars.append(self)

    def update(self, n=1):
        self.steps.append((self.n, n))
        return super().update(n)


@pytest.fixture
def recorded(monkeypatch):
    _Recorded.bars = []
    monkeypatch.setattr(tqdm, "tqdm", _Recorded)
    return _Recorded.bars


@pytest.mark.parametrize("tty", [True, False])
def test_auto_is_whether_stderr_is_a_terminal(monkeypatch, tty):
    monkeypatch.setattr(sys, "stderr", _Stream(tty))
    assert progress.shown(None) is tty
    assert progress.shown(True) and not progress.shown(False)
    b = progress.bar(10, "work", None)
    b.update(10)
    b.close()
    assert ("work" in sys.stderr.getvalue()) is tty


def test_no_stderr_means_no_progress(monkeypatch):
    monkeypatch.setattr(sys, "stderr", None)
    assert not progress.shown(None)


def _runs(n: int, N: int) -> np.ndarray:
    """Random binary runs; another shape gives other runs (φ already counted would not count again)."""
    return (np.random.default_rng(n * 1000 + N).random((n, N)) < 0.3).astype(np.int64)


def test_an_rbp_count_advances_its_bars_while_it_works(monkeypatch, recorded):
    """RBP p = 0.8 by meet in the middle: a bar over the half tables' build (one step per rank merged and per
    block of the bucket index) and one over the runs (one step per 64), each filled exactly."""
    monkeypatch.setattr(sys, "stderr", _Stream(True))
    monkeypatch.setattr(meet, "_BUCKET_STEP", 1 << 8)
    meet.half_table.cache_clear()
    rel = _runs(400, 20)
    phi = counting.phi_runs("RBP_p08", rel, progress=True)
    assert np.array_equal(phi, counting.phi_runs("RBP_p08", rel, progress=False))
    tables, count = [b for b in recorded if b.shown]
    assert "(tables)" in tables.desc and "(counting)" in count.desc
    for b in (tables, count):
        assert b.n == b.total and b.total > 0
        partial = [n_before + n for n_before, n in b.steps if 0 < n_before + n < b.total]
        assert len(partial) >= 4, b.steps  # it moved several times before the end
    assert tables.steps[0][1] == 2  # the first merge: 2 entries, long before the table is done
    assert "(counting)" in sys.stderr.getvalue()


def test_a_count_writes_nothing_when_stderr_is_not_a_terminal(monkeypatch, recorded):
    monkeypatch.setattr(sys, "stderr", _Stream(False))
    monkeypatch.setattr(counting, "count_cost", lambda *a, **k: (1e6, 0))  # "long": auto decides on the terminal alone
    meet.half_table.cache_clear()
    counting.phi_runs("RBP_p08", _runs(300, 18), progress=None)
    assert not any(b.shown for b in recorded)  # quiet bars (progress.Quiet): no tqdm at all
    assert sys.stderr.getvalue() == ""


def test_a_long_count_on_a_terminal_shows_its_bars(monkeypatch, recorded):
    monkeypatch.setattr(sys, "stderr", _Stream(True))
    monkeypatch.setattr(counting, "count_cost", lambda *a, **k: (1e6, 0))
    meet.half_table.cache_clear()
    counting.phi_runs("RBP_p08", _runs(301, 18), progress=None)
    assert [b.desc.split(" (")[-1] for b in recorded if b.shown] == ["tables)", "counting)"]


def test_a_dcg_count_advances_per_call_of_its_kernel(monkeypatch, recorded):
    """Binary DCG (fixed point, blocked): a bar over the tables' three steps, and one over the bottom blocks
    moving after each call of the kernel. Calls are sized by time: when every call is "slow" each takes one
    block per thread group and ever fewer thresholds (down to one), so the bar moves often even where a
    single block is most of the work; when every call is "fast" they grow, and few calls do it all."""
    from irscales.enumeration import _fixed_count as fixed_count

    monkeypatch.setattr(sys, "stderr", _Stream(True))
    monkeypatch.setattr(fixed_count, "BLOCK", 64)
    rel = _runs(50, 22)
    calls = {}
    for mode, seconds in (("slow", 0.0), ("fast", 1e9)):
        recorded.clear()
        counting.release_tables()
        counting._COUNTED.clear()
        monkeypatch.setattr(fixed_count, "STEP_SECONDS", seconds)
        phi = counting.phi_runs("DCG_b02", rel, progress=True)
        tables, count = [b for b in recorded if b.shown]
        assert "(tables)" in tables.desc and len(tables.steps) == 3 and tables.n == tables.total
        assert "(counting)" in count.desc and count.n == pytest.approx(count.total) and count.total > 1
        calls[mode] = (phi, len(count.steps), count.total)
    (phi_slow, n_slow, blocks), (phi_fast, n_fast, _) = calls["slow"], calls["fast"]
    assert np.array_equal(phi_slow, phi_fast)
    assert n_slow > 2 * blocks  # more calls than blocks: slices of the thresholds
    assert n_fast <= 6 + int(np.log2(blocks)) < n_slow


def test_iterate_gives_every_item_and_moves_its_bar_once_per_item(monkeypatch, recorded):
    monkeypatch.setattr(sys, "stderr", _Stream(tty=True))
    assert list(progress.iterate(iter("abc"), 3, "letters", None)) == ["a", "b", "c"]
    (b,) = recorded
    assert b.shown and b.steps == [(0, 1), (1, 1), (2, 1)]
    monkeypatch.setattr(sys, "stderr", _Stream(tty=False))
    assert list(progress.iterate(range(2), 2, "quiet", None)) == [0, 1] and len(recorded) == 1  # a Quiet bar
    quiet = progress.bar(5, "quiet", False)
    with quiet:
        quiet.update(2)
        quiet.update()
    assert isinstance(quiet, progress.Quiet) and (quiet.n, quiet.total) == (3, 5)

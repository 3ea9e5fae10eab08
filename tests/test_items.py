"""irscales.papers.items: what the report's text and page share."""

import pytest

from irscales.papers import items


def test_missing_runs_of_public_and_private_trec_tracks():
    assert items.missing_runs("fff21", "table5/T08_30/RR/Sign Test/Sig") is None
    assert "T26" in items.missing_runs("fff21", "table5/T26_30/RR/Sign Test/Sig")


def test_relative_difference_sorts_the_differs_view():
    assert items.relative_difference("0.5575", "0.5520833333333334") == pytest.approx(0.0097160, rel=1e-4)
    assert items.relative_difference("20%", "15.625") == pytest.approx(0.21875)
    assert items.relative_difference("1/2", "0.4081") == pytest.approx(0.1838)
    assert items.relative_difference("yes", "no") is None
    assert items.relative_difference("2^N m", "2^N m + 1") is None

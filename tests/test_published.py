"""irscales.papers.published: how printed numbers are read."""

from fractions import Fraction

import pytest

from irscales.papers import published


@pytest.mark.parametrize("text, decimals", [("0.9498", 4), ("-11.60%", 2), ("+5.29%", 2), ("8,256", 0),
                                            ("1.69e-05", 7), ("3.648e-85", 88), ("2", 0)])
def test_printed_decimals(text, decimals):
    assert published.printed_decimals(text) == decimals


def test_matches_uses_the_printed_precision():
    assert published.matches("0.9498", 0.94984) and not published.matches("0.9498", 0.94986)
    assert published.matches("1.69e-05", 1.6949e-05) and not published.matches("1.69e-05", 1.6951e-05)


def test_parse_number_reads_printed_numbers():
    assert published.parse_number("24,576") == (24576.0, 0, False)
    assert published.parse_number("−11.60%") == (-11.6, 2, True)
    assert published.parse_number("1/2") == (Fraction(1, 2), None, False)
    assert published.parse_number("yes") == (None, None, False)

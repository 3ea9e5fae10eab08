"""MM23 §3 items that follow from numbers the paper itself prints (route ``printed``): the
Robust setup's pair counts, the Fig. 6 totals, the system-query runs of §3 "Separability In
Practice" with the factors of the product the paper prints for them, and the three worked IPSO sign
tests of §3 "Statistical Testing"."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pandas as pd

from irscales.ipso import sign_test_one_sided, sign_test_pvalues
from irscales.papers.printing import read_value, yes_no

__all__ = ["printed_product", "reproduce_from_printed"]

_PRODUCT = re.compile(r"(\d[\d,]*(?:\s*×\s*\d[\d,]*)+(?:\s*/\s*\d+)?)\s*=\s*(\d[\d,]*)")


def printed_product(text: str) -> tuple[list[int], int, Fraction]:
    """The first product the paper prints in ``text`` ("a×b×c/d=v"): (factors, divisor, left side
    evaluated exactly), so the paper's own arithmetic can be checked against its printed v."""
    m = _PRODUCT.search(text)
    if m is None:
        raise ValueError(f"no printed product 'a×b=v' in {text!r}")
    left, _, div = m.group(1).partition("/")
    factors = [int(read_value(f)) for f in left.split("×")]
    divisor = int(div) if div else 1
    return factors, divisor, Fraction(math.prod(factors), divisor)


def _printed_int(pub: pd.DataFrame, item: str) -> int:
    v = read_value(pub.loc[item, "value"])
    if v is None or v.denominator != 1:
        raise ValueError(f"mm23.csv: item {item!r} is not a printed whole number: {pub.loc[item, 'value']!r}")
    return int(v)


def reproduce_from_printed(published: pd.DataFrame) -> tuple[dict[str, object], dict[str, str]]:
    """MM23 §3 items that follow from numbers the paper itself prints (route ``printed``), with
    notes; ``published`` is ``data/published/mm23.csv``, whose printed inputs are read, never typed.

    Inputs: the Robust setup (``s3/setup/systems``, ``s3/setup/topics``), the five Fig. 6 group
    sizes, the count of runs with unjudged documents and the printed system-query runs. Derived: the
    system pairs C(S, 2), the SERP pairs T·C(S, 2), the system-query runs S·T, the topics factor of
    the product the paper prints for them (the printed count over the printed system count), the
    Fig. 6 totals, the share of runs with unjudged documents, and the three worked IPSO sign tests
    of §3 "Statistical Testing".
    """
    pub = published.set_index("item")
    systems, topics = _printed_int(pub, "s3/setup/systems"), _printed_int(pub, "s3/setup/topics")
    g = {key: _printed_int(pub, f"fig6/{key}") for key in (
        "group1_nonsep_via_ns", "group2_ns", "group3_equal", "group4_ni", "group5_nonsep_via_ni")}
    out: dict[str, object] = {}
    notes: dict[str, str] = {}
    pairs = math.comb(systems, 2)
    out["s3/system_pairs"] = pairs
    notes["s3/system_pairs"] = f"recomputed from the printed system count: C({systems}, 2) = {pairs:,}"
    out["table3/serp_pairs"] = topics * pairs
    notes["table3/serp_pairs"] = f"recomputed from the printed setup: {topics} topics × C({systems}, 2) = {topics * pairs:,}"
    runs = systems * topics
    out["s3/unjudged/system_query_runs"] = runs
    factors, divisor, exact = printed_product(str(pub.loc["s3/unjudged/system_query_runs", "context"]))
    product = int(exact) if exact.denominator == 1 else float(exact)
    shown = "×".join(map(str, factors)) + (f"/{divisor}" if divisor != 1 else "")
    notes["s3/unjudged/system_query_runs"] = (
        f"recomputed from the printed setup: {systems} systems × {topics} topics = {runs:,}"
        + ("" if product == runs else f"; the product the paper prints beside it, {shown}, is {product:,}: "
                                      "its topics factor is a misprint (s3/unjudged/topics_factor)"))
    printed_runs = _printed_int(pub, "s3/unjudged/system_query_runs")
    factor = Fraction(printed_runs, systems)
    out["s3/unjudged/topics_factor"] = int(factor) if factor.denominator == 1 else float(factor)
    notes["s3/unjudged/topics_factor"] = (
        f"recomputed from the printed count: {printed_runs:,} / {systems} systems = {factor}, "
        + (f"which is §3's {topics} topics" if factor == topics else f"while §3 has {topics} topics")
        + f"; the printed factor would give {systems * _printed_int(pub, 's3/unjudged/topics_factor'):,}")
    unjudged = _printed_int(pub, "s3/unjudged/runs_with_unjudged")
    out["s3/unjudged/share_with_unjudged"] = 100 * unjudged / runs
    notes["s3/unjudged/share_with_unjudged"] = (
        f"recomputed from the printed counts: {unjudged:,} / ({systems} × {topics} = {runs:,}) = {100 * unjudged / runs:.2f}%")
    out["fig6/topics_total"] = sum(g.values())
    notes["fig6/topics_total"] = (f"the five printed group sizes add up to {sum(g.values())}; "
                                  f"the paper's topic count is {topics}")
    nonsep = g["group1_nonsep_via_ns"] + g["group5_nonsep_via_ni"]
    out["fig6/nonsep_topics"] = nonsep
    notes["fig6/nonsep_topics"] = (f"recomputed from the printed Fig. 6 group sizes: "
                                   f"{g['group1_nonsep_via_ns']} + {g['group5_nonsep_via_ni']} non-separable topics")
    ns, ni = g["group2_ns"], g["group4_ni"]
    p, _ = sign_test_pvalues([ns, ns, ns + nonsep], [ni, ni + nonsep, ni])
    out["s3/ipso_sign_test/p_81_vs_109"] = float(p[0])
    notes["s3/ipso_sign_test/p_81_vs_109"] = f"recomputed from the printed counts |ns| = {ns}, |ni| = {ni}: exact two-tailed sign test"
    out["s3/ipso_sign_test/p_81_vs_145_below_0.01"] = yes_no(p[1] < 0.01)
    notes["s3/ipso_sign_test/p_81_vs_145_below_0.01"] = (
        f"recomputed from the printed counts: {ns} vs {ni} + {nonsep} gives p = {p[1]:.2g} (exact, two-tailed)")
    out["s3/ipso_sign_test/p_117_vs_109"] = float(p[2])
    one = sign_test_one_sided(ns + nonsep, ni)
    notes["s3/ipso_sign_test/p_117_vs_109"] = (
        f"recomputed from the printed counts: {ns} + {nonsep} = {ns + nonsep} vs {ni} gives p = {p[2]:.2f} two-sided "
        f"({float(one):.2f} one-sided) by the exact sign test that gives the paper's p for {ns} vs {ni} "
        f"({float(p[0]):.4f}); we found no reading of the counts that gives the printed value")
    return out, notes

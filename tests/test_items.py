"""irscales.papers.items: what the report's text and page share."""

import pytest

from irscales.papers import items


def test_missing_runs_of_public_and_private_trec_tracks():
    assert items.missing_runs("fff21", "table5/T08_30/RR/Sign Test/Sig") is None
    assert "T26" in items.missing_runs("fff21", "table5/T26_30/RR/Sign Test/Sig")


def test_missing_runs_of_fer17_say_what_is_still_missing_once_the_authors_grid_is_read():
    assert items.missing_runs("fer17", "table1/T08/AP") is None  # grid and runs public: notebook 03b
    assert "103 original TREC-7" in items.missing_runs("fer17", "table1/T07/R-prec")
    assert "original TREC-9" in items.missing_runs("fer17", "table1/T09/AP")
    assert "Grid of Points on T10 is read" in items.missing_runs("fer17", "table1/T10/ERR")
    t14, rq = items.missing_runs("fer17", "table1/T14/AP"), items.missing_runs("fer17", "table4/AP vs P@10/tau")
    assert "GOV2" in t14 and "Terabyte" in t14 and "GOV2" in rq and "T07–T10" in rq
    assert "judgments of all 249 topics are" in items.missing_runs("mm23", "table3/k5/equal")


def test_figure_route_from_the_file_name():
    assert items.figure_route("fig1_kde_T08_AP_real_gop") == "real data"
    assert items.figure_route("fig4_main_effects_tau_real_gop_analogue") == "real-data analogue"
    assert items.figure_route("fig5_pair_topics_k10_real_r04_249_analogue") == "real-data analogue"
    assert items.figure_route("fig7_agreement_simulated_r04") == "simulated data"
    assert items.figure_route("fig14_rq1_vs_rq3_tau_from_printed_tables4_9") == "from printed inputs"
    assert items.figure_route("fig3_all_values_N5-10-15-20") == ""  # exhaustive: the name claims no data


def test_relative_difference_sorts_the_differs_view():
    assert items.relative_difference("0.5575", "0.5520833333333334") == pytest.approx(0.0097160, rel=1e-4)
    assert items.relative_difference("20%", "15.625") == pytest.approx(0.21875)
    assert items.relative_difference("1/2", "0.4081") == pytest.approx(0.1838)
    assert items.relative_difference("yes", "no") is None
    assert items.relative_difference("2^N m", "2^N m + 1") is None


def test_not_errata_are_counted_apart_from_the_errata():
    import pandas as pd

    t = pd.DataFrame({"item": ["a/1", "a/2", "b/1", "b/2"],
                      "status": ["agrees within printing", "agrees within printing", "depends on reading", "differs"]})
    assert items.not_errata_sentence(t) == ("Not errata: 2 agree within the paper's printing (truncated, a marked "
                                            "approximation, a range that holds or a value read off a figure) and 1 "
                                            "depends on how the paper is read (truncated or rounded, or a convention "
                                            "it leaves open).")
    assert items.errata(t) == [("b", ["2"])]
    assert items.not_errata_sentence(t.iloc[3:]) == ""
    assert "2 agree within printing; 1 depends on the reading; 0 unresolved (settings unknown); 1 differs (errata)" \
        in items.summary_line(t)


def test_unresolved_is_counted_apart_from_errata_and_readings():
    import pandas as pd

    t = pd.DataFrame({"item": ["a/1", "a/2", "b/1"], "status": ["unresolved", "unresolved", "differs"]})
    assert items.status_counts(t)["unresolved"] == 2 and "unresolved" not in items.NOT_ERRATA
    assert items.errata(t) == [("b", ["1"])] and items.not_errata_sentence(t) == ""
    assert items.unresolved_sentence(t).startswith("Unresolved: 2 items are not reproduced")
    assert "2 unresolved (settings unknown); 1 differs (errata)" in items.summary_line(t)
    assert items.unresolved_sentence(t.iloc[2:]) == ""
    assert items.STATUSES.index("agrees within printing") < items.STATUSES.index("differs")
    assert set(items.NOT_ERRATA) <= set(items.MEANING)


def test_grid_sentences_are_derived_from_the_table1_notes():
    import pandas as pd

    note = ("real data: …; GoP = all 4,284 systems of the authors' published grid; the closest 1,326-system "
            "subset (long, no 3-grams (1,326)) gives {v}")
    t = pd.DataFrame({"item": ["table1/T07/AP", "table1/T08/AP", "table2/x"], "route": ["real", "real", "real"],
                      "published": ["0.0330", "0.0335", "1"], "status": ["reproduced on real data"] * 2 + ["differs"],
                      "note": [note.format(v="0.0262"), note.format(v="0.0335"), ""]})
    (g,) = items.grid_sentences(t)
    assert "whole published Grid of Points — 4,284 systems" in g and "2 of the 2 cells" in g
    assert "not on the 1,326-system grid" in g and "on the closest such subset 1 of 2 cells do" in g
    assert "T07/AP 0.0262 (long, no 3-grams; printed 0.0330)" in g
    assert items.grid_sentences(t.iloc[2:]) == []
    # the wording follows the counts: a cell off on the whole grid, every cell on the subset
    t2 = t.assign(status=["differs", "reproduced on real data", "differs"],
                  note=[note.format(v="0.0330"), note.format(v="0.0335"), ""])
    (g2,) = items.grid_sentences(t2)
    assert g2.startswith("Fer17 Table 1 does not reproduce on the whole") and "1 of the 2 cells" in g2
    assert "and also on the 1,326-system grid" in g2 and "subset 2 of 2 cells do" in g2

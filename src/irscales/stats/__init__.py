"""Statistics on score matrices: significance tests between systems, ANOVA with Tukey HSD (Fer17's sampling
designs of correlation experiments are in :mod:`irscales.papers.fer17.sampling`).

The public API in one place (``from irscales.stats import significance_tests``):

- :mod:`irscales.stats._significance`  the eight procedures of FFF21 §2.5/§7.3 and Tables 5–6
  (:mod:`~irscales.stats._results` input and result types, :mod:`~irscales.stats._pairwise`
  per-pair tests, :mod:`~irscales.stats._tukey` all-systems procedures and critical values);
- :mod:`irscales.stats._randomisation`  the paired randomisation (permutation) test (Smucker et al. 2007);
- :mod:`irscales.stats._anova`         ω², power, crossed / nested ANOVA tables, Tukey HSD on levels.
"""

from irscales.stats._anova import (CROSSED_TERMS, NESTED_TERMS, balanced_anova, effect_size_class, marginal_means,
                                   ols_anova, omega_squared, power, tukey_levels)
from irscales.stats._randomisation import randomisation_test
from irscales.stats._significance import (ORDINAL_TESTS, TEST_LABELS, TESTS, PairwiseTest, SignificanceChange,
                                          SignificanceResult, anova1_tukey, anova2_tukey, binomial_two_sided_table,
                                          compare_significance, friedman_tukey, grand_mean_delta,
                                          kruskal_wallis_tukey, paired_t_test, rank_sum_test, sign_test,
                                          significance_changes, significance_tests, signed_rank_test)
from irscales.stats._tukey import CRITICAL_CONVENTIONS, studentized_range_critical, studentized_range_sf

__all__ = [
    "TESTS", "SignificanceResult", "significance_tests", "sign_test", "rank_sum_test", "signed_rank_test",
    "paired_t_test", "anova1_tukey", "anova2_tukey", "kruskal_wallis_tukey", "friedman_tukey", "randomisation_test",
    "compare_significance", "significance_changes", "balanced_anova", "ols_anova", "omega_squared", "power",
]

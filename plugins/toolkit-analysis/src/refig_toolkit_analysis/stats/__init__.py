"""The statistics of a refig report, each documented with its exact definition (numpy and scipy).

One module per topic: :mod:`.bootstrap` (plain, paired and cluster intervals), :mod:`.elo`
(Bradley-Terry on the Elo scale), :mod:`.icc` (judge repeatability), :mod:`.agreement` (rank and
judge-human direction agreement), :mod:`.kappa` (agreement between annotators),
:mod:`.correlation` (Pearson with a bootstrap interval, Krippendorff's alpha),
:mod:`.sensitivity` (rubric weight sweeps), :mod:`.decomposition` (harness and model apart) and
:mod:`.power` (study sizes from a pilot); :mod:`.intervals` holds what they share. Resampling
draws whole matrices of indices from a seeded :class:`numpy.random.Generator` and turns them into
count matrices, so a bootstrap of a mean is one matrix product instead of a Python loop;
``docs/statistics.md`` explains every choice made here.
"""

from refig_toolkit_analysis.stats.agreement import (
    DEFAULT_MARGIN_BUCKETS,
    TIE_MARGIN,
    AgreementBucket,
    DirectionAgreement,
    RankAgreement,
    ZeroMargin,
    direction_agreement,
    rank_agreement,
)
from refig_toolkit_analysis.stats.bootstrap import (
    bootstrap_ci,
    cluster_bootstrap_ci,
    cluster_resampled_means,
    paired_bootstrap_ci,
    resample_indices,
)
from refig_toolkit_analysis.stats.correlation import (
    Alpha,
    Correlation,
    krippendorff_alpha,
    pearson_ci,
)
from refig_toolkit_analysis.stats.decomposition import (
    Decomposition,
    decompose,
    largest_crossed_grid,
    sum_of_squares_shares,
    two_way_effects,
)
from refig_toolkit_analysis.stats.elo import (
    ELO_MEAN,
    ELO_SCALE,
    Comparison,
    EloResult,
    _credit_matrices,
    _fit_bt,
    bradley_terry_elo,
)
from refig_toolkit_analysis.stats.icc import ICCResult, icc_2_1
from refig_toolkit_analysis.stats.intervals import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    FloatArray,
    Interval,
    Seed,
    wilson_interval,
)
from refig_toolkit_analysis.stats.kappa import KappaResult, cohen_kappa, fleiss_kappa
from refig_toolkit_analysis.stats.sensitivity import (
    ELO_SWEEP_SHARES,
    WeightSweep,
    axis_weight_correlations,
    reweighted_points,
    weight_sign_threshold,
)

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_MARGIN_BUCKETS",
    "DEFAULT_RESAMPLES",
    "ELO_MEAN",
    "ELO_SCALE",
    "ELO_SWEEP_SHARES",
    "TIE_MARGIN",
    "AgreementBucket",
    "Alpha",
    "Comparison",
    "Correlation",
    "Decomposition",
    "DirectionAgreement",
    "EloResult",
    "FloatArray",
    "ICCResult",
    "Interval",
    "KappaResult",
    "RankAgreement",
    "Seed",
    "WeightSweep",
    "ZeroMargin",
    "_credit_matrices",
    "_fit_bt",
    "axis_weight_correlations",
    "bootstrap_ci",
    "bradley_terry_elo",
    "cluster_bootstrap_ci",
    "cluster_resampled_means",
    "cohen_kappa",
    "decompose",
    "direction_agreement",
    "fleiss_kappa",
    "icc_2_1",
    "krippendorff_alpha",
    "largest_crossed_grid",
    "paired_bootstrap_ci",
    "pearson_ci",
    "rank_agreement",
    "resample_indices",
    "reweighted_points",
    "sum_of_squares_shares",
    "two_way_effects",
    "weight_sign_threshold",
    "wilson_interval",
]

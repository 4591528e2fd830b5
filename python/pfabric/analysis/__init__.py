"""Queueing models beside the simulator: what theory predicts, to choose parameters and to check runs.

`thresholds`: the pFabric paper's section 6.1 model of a few strict-priority queues split by flow size
(FCT_n(t), Figure 16), generalized to N queues, with the optimal, the equal-split and the equal-load thresholds.
"""

from __future__ import annotations

from .thresholds import (
    MODELS,
    QueueStats,
    SizeDistribution,
    equal_load_thresholds,
    equal_split_thresholds,
    fct_curve,
    fct_n,
    fct_n_two_queues,
    mg1_fifo_fct_n,
    optimal_thresholds,
    queue_breakdown,
)

__all__ = [
    "MODELS",
    "QueueStats",
    "SizeDistribution",
    "equal_load_thresholds",
    "equal_split_thresholds",
    "fct_curve",
    "fct_n",
    "fct_n_two_queues",
    "mg1_fifo_fct_n",
    "optimal_thresholds",
    "queue_breakdown",
]

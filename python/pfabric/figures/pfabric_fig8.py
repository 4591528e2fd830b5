"""pFabric Figure 8: normalized FCT by flow size vs load, web search workload.

Figure 7's web search runs (shared through the store: no new simulation when Figure 7 ran first) broken down into
(0,100KB] average and 99th percentile, (100KB,10MB] average and (10MB,inf) average. The paper's claim checked
here: pFabric gives small flows the lowest average and tail FCT at every load (PDQ too, when the core has it).
"""

from __future__ import annotations

from functools import partial

from . import _breakdown
from .figure import Figure

WORKLOAD = "web search"

FIGURE = Figure(
    name="pfabric-fig8",
    paper="pFabric",
    title="Figure 8: web search, normalized FCT by flow size",
    shows="web search: (0,100KB] mean and p99, (100KB,10MB] mean, (10MB,inf) mean vs load; TCP, DCTCP, pFabric, PDQ, Ideal",
    schemes=("tcp", "dctcp", "pfabric", "pdq", "ideal"),
    points=partial(_breakdown.points, WORKLOAD),
    plot=partial(_breakdown.plot, WORKLOAD, 8),
    checks=partial(_breakdown.checks, WORKLOAD),
    table=_breakdown.table,
    notes=("Shares Figure 7's runs through the store; PDQ runs when the core has it.",),
)

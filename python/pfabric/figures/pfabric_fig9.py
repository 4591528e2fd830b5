"""pFabric Figure 9: normalized FCT by flow size vs load, data mining workload.

Figure 7's data mining runs (shared through the store: no new simulation when Figure 7 ran first) broken down into
(0,100KB] average and 99th percentile, (100KB,10MB] average and (10MB,inf) average. The paper's claim checked
here: pFabric gives small flows the lowest average and tail FCT at every load (PDQ too, when the core has it).
"""

from __future__ import annotations

from functools import partial

from . import _breakdown
from .figure import Figure

WORKLOAD = "data mining"

FIGURE = Figure(
    name="pfabric-fig9",
    paper="pFabric",
    title="Figure 9: data mining, normalized FCT by flow size",
    shows="data mining: (0,100KB] mean and p99, (100KB,10MB] mean, (10MB,inf) mean vs load; TCP, DCTCP, pFabric, PDQ, Ideal",
    schemes=("tcp", "dctcp", "pfabric", "pdq", "ideal"),
    points=partial(_breakdown.points, WORKLOAD),
    plot=partial(_breakdown.plot, WORKLOAD, 9),
    checks=partial(_breakdown.checks, WORKLOAD),
    table=_breakdown.table,
    notes=("Shares Figure 7's runs through the store; PDQ runs when the core has it.",),
)

"""AIFO Figure 7's sweep on the data mining workload (netbench's "lower bound" CDF, as the AIFO and SP-PIFO
code samples it), 10/40 Gbps leaf-spine: the setting the SP-PIFO paper also reports. Same schemes and hosts as
`aifo-fig7`.

Checked: section 5.1's general claims only (AIFO close to PIFO and SP-PIFO, below TCP). The AIFO paper shows no
data mining results, so how Figure 7's web search curves move with the load is not a claim about this workload;
the table and plot show it. The closeness bound is a ratio read off the authors' web-search data; where it fails,
the check shows AIFO's added delay beside the smallest their own web-search runs show
(`aifo_fig7.added_delay_below_authors`): data mining's small flows are mostly single packets, done in a few
microseconds, so a small added delay is a large ratio.
"""

from __future__ import annotations

from . import _aifo
from .aifo_fig7 import fct_vs_load_figure, general_checks

FIGURE = fct_vs_load_figure(
    "aifo-fig7-datamining",
    "data mining",
    workload=(_aifo.DATAMINING, _aifo.DATAMINING_CDF),
    checks=general_checks,
)

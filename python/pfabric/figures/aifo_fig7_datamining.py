"""AIFO Figure 7's sweep on the data mining workload (netbench's "lower bound" CDF, as the AIFO and SP-PIFO
code samples it), 10/40 Gbps leaf-spine: the setting the SP-PIFO paper also reports. Same schemes, hosts and
checks as `aifo-fig7`.
"""

from __future__ import annotations

from . import _aifo
from .aifo_fig7 import fct_vs_load_figure

FIGURE = fct_vs_load_figure(
    "aifo-fig7-datamining", "data mining", workload=(_aifo.DATAMINING, _aifo.DATAMINING_CDF)
)

"""AIFO Figure 7's sweep, web search, on the 1G/4G leaf-spine (access links 1 Gbps, leaf-spine 4 Gbps): the
links of the AIFO authors' run files and of Figure 10. Same schemes, hosts and checks as `aifo-fig7`.
"""

from __future__ import annotations

from . import _aifo
from .aifo_fig7 import fct_vs_load_figure

FIGURE = fct_vs_load_figure("aifo-fig7-1g", "web search, 1G/4G links", topology=_aifo.SLOW_LINKS)

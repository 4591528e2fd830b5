"""pFabric Figure 8: normalized FCT by flow size vs load, web search workload.

Figure 7's web search runs, shared through the store (no new simulation when Figure 7 ran first); the panels
and the check are Figure 9's too, with the other workload (`_breakdown.py`).
"""

from __future__ import annotations

from . import _breakdown

FIGURE = _breakdown.figure(8, "web search")

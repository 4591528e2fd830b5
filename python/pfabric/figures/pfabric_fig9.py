"""pFabric Figure 9: normalized FCT by flow size vs load, data mining workload.

The data mining half of Figure 7's runs, shared through the store; broken down by size as Figure 8 does web
search (`_breakdown.py`).
"""

from __future__ import annotations

from . import _breakdown

FIGURE = _breakdown.figure(9, "data mining")

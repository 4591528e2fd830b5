"""AIFO Figure 10: AIFO's queue length on a 1G/4G network (access 1 Gbps, leaf-spine 4 Gbps).

Paper: on 1G/4G, q_len = 20 gives a much lower FCT than q_len = 100, since a long queue drains slowly at 1 Gbps. Checked: the small-flow mean at q_len 20 below q_len 100 at every load.
Queue lengths 20, 50 and 100 packets (the paper's values beyond 20 and 100 are not in the seed text); the
sweep, plot and table are Figure 11's on other links (`_aifo.queue_length_figure`).
"""

from __future__ import annotations

from . import _aifo

# On slow links a long queue costs queueing delay.
TOPOLOGY = _aifo.SLOW_LINKS

FIGURE = _aifo.queue_length_figure(
    10,
    links="1G/4G",
    topology=TOPOLOGY,
    claim="on 1G/4G a queue of 20 beats a queue of 100 for small flows at every load",
    expected="much smaller with q_len = 20",
    holds=lambda ratio: ratio < 1,
)

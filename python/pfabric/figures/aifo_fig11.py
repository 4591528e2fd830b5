"""AIFO Figure 11: AIFO's queue length on a 10G/40G network (access 10 Gbps, leaf-spine 40 Gbps).

Paper: on 10G/40G, q_len = 20 is close to q_len = 100. Checked: small-flow means within 25% at every load (our tolerance for "close").
Queue lengths 20, 50 and 100 packets, as in Figure 10 (`_aifo.queue_length_figure`).
"""

from __future__ import annotations

from . import _aifo

# On fast links a long queue barely matters.
TOPOLOGY = {"host_rate_gbps": 10, "core_rate_gbps": 40}

FIGURE = _aifo.queue_length_figure(
    11,
    links="10G/40G",
    topology=TOPOLOGY,
    claim="on 10G/40G a queue of 20 is close to a queue of 100 (within 25%) at every load",
    expected="close",
    holds=lambda ratio: abs(ratio - 1) <= 0.25,
)

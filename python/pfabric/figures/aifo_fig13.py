"""AIFO Figure 13: packet reordering: the first 300 packets of the small flow as the receiver gets them.

Paper: AIFO, a single FIFO, keeps a flow's packets in order, like FIFO; PIFO and SP-PIFO dequeue by rank and
reorder some packets; "As SP-PIFO approximates PIFO with a set of FIFO queues, it causes fewer out-of-orders
compared with PIFO" (section 5.1). Same runs as AIFO Figure 12. Checked: no out-of-order arrival under FIFO
and AIFO, some under PIFO and SP-PIFO, fewer under SP-PIFO than under PIFO (the core's per-flow
`out_of_order` counts, summed over the start phases of `_reorder`; the plot shows the flows starting together).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..presets import Check
from . import _reorder
from .aifo_fig12 import table
from .common import Done, run_panels
from .figure import Figure

SHOWN_PACKETS = 300
# What is checked: (schemes, claim, the paper's finding, whether a scheme's out-of-order count agrees).
CLAIMS = (
    (
        ("FIFO", "AIFO"),
        "FIFO and AIFO deliver every flow in order",
        "no out-of-order packets",
        lambda n: n == 0,
    ),
    (
        ("PIFO", "SP-PIFO"),
        "PIFO and SP-PIFO reorder some packets",
        "some out-of-order packets",
        lambda n: n > 0,
    ),
)


def plot(done: Done, out_dir: Path) -> list[Path]:
    def draw(ax, result) -> None:
        names = {name: flow for flow, name in _reorder.flow_names(result).items()}
        arrivals = result.arrivals
        mask = arrivals.column("flow_id").to_numpy() == names["small"]
        seq = arrivals.column("seq").to_numpy()[mask][:SHOWN_PACKETS]
        ax.plot(np.arange(len(seq)), seq, ".", ms=2)
        ax.set_xlabel("arrival order (packets of the small flow)")

    title = f"AIFO Figure 13: the first {SHOWN_PACKETS} packets of the small flow"
    return run_panels(
        _reorder.first_phase(done), out_dir, "reordering", title, "packet index in the flow", draw
    )


def checks(done: Done) -> list[Check]:
    count: dict[str, int] = {}
    for labels, result in done:
        ooo = int(np.sum(result.flows.column("out_of_order").to_numpy()))
        count[labels["scheme"]] = count.get(labels["scheme"], 0) + ooo
    out = []
    for schemes, claim, expected, agrees in CLAIMS:
        ran = [k for k in schemes if k in count]
        if ran:
            out.append(
                Check(
                    claim,
                    ", ".join(f"{k} {count[k]}" for k in ran),
                    expected,
                    all(agrees(count[k]) for k in ran),
                )
            )
    if "PIFO" in count and "SP-PIFO" in count:
        out.append(
            Check(
                "SP-PIFO reorders fewer packets than PIFO",
                f"SP-PIFO {count['SP-PIFO']}, PIFO {count['PIFO']}",
                "fewer out-of-order packets under SP-PIFO",
                count["SP-PIFO"] < count["PIFO"],
            )
        )
    return out


FIGURE = Figure(
    name="aifo-fig13",
    paper="AIFO",
    title="AIFO Figure 13: packet reordering",
    shows="packet index vs arrival order for the first 300 packets of the small flow: FIFO, PIFO, SP-PIFO, AIFO",
    schemes=("pifo", "sp-pifo", "aifo"),
    points=_reorder.points,
    plot=plot,
    checks=checks,
    table=table,
    notes=("The runs are AIFO Figure 12's, shared through the store.",),
)

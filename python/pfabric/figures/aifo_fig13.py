"""AIFO Figure 13: packet reordering: the first 300 packets of the small flow as the receiver gets them.

Paper: AIFO, a single FIFO, keeps a flow's packets in order, like FIFO; PIFO and SP-PIFO dequeue by rank and
reorder some packets (SP-PIFO fewer than PIFO). Same runs as AIFO Figure 12. Checked: no out-of-order
arrival under FIFO and AIFO, some under PIFO and SP-PIFO (the core's per-flow `out_of_order` counts).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..plots import _pyplot, _save
from ..presets import Check
from . import _reorder
from .aifo_fig12 import table
from .common import Done
from .figure import Figure

SHOWN_PACKETS = 300


def plot(done: Done, out_dir: Path) -> list[Path]:
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(done), figsize=(3.6 * len(done), 3.4), squeeze=False, sharey=True)
    for ax, (labels, result) in zip(axes[0], done, strict=True):
        names = {name: flow for flow, name in _reorder.flow_names(result).items()}
        arrivals = result.arrivals
        mask = arrivals.column("flow_id").to_numpy() == names["small"]
        seq = arrivals.column("seq").to_numpy()[mask][:SHOWN_PACKETS]
        ax.plot(np.arange(len(seq)), seq, ".", ms=2)
        ax.set_title(labels["scheme"], fontsize="medium")
        ax.set_xlabel("arrival order (packets of the small flow)")
    axes[0][0].set_ylabel("packet index in the flow")
    fig.suptitle(f"AIFO Figure 13: the first {SHOWN_PACKETS} packets of the small flow")
    fig.tight_layout()
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = _save(fig, out_dir / "reordering")
    plt.close(fig)
    return paths


def checks(done: Done) -> list[Check]:
    count = {l["scheme"]: int(np.sum(r.flows.column("out_of_order").to_numpy())) for l, r in done}
    out = []
    in_order = [k for k in ("FIFO", "AIFO") if k in count]
    if in_order:
        out.append(
            Check(
                "FIFO and AIFO deliver every flow in order",
                ", ".join(f"{k} {count[k]}" for k in in_order),
                "no out-of-order packets",
                all(count[k] == 0 for k in in_order),
            )
        )
    ranked = [k for k in ("PIFO", "SP-PIFO") if k in count]
    if ranked:
        out.append(
            Check(
                "PIFO and SP-PIFO reorder some packets",
                ", ".join(f"{k} {count[k]}" for k in ranked),
                "some out-of-order packets",
                all(count[k] > 0 for k in ranked),
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

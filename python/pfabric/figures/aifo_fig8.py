"""AIFO Figure 8: the headroom parameter k (0.1 to 0.9) against FIFO and PIFO.

Paper: a smaller k drops high-rank packets more aggressively and keeps the buffer shallow; small k is always
better for small flows, and at k = 0.1 the small-flow mean and p99 FCT are about 9x lower than at k = 0.9,
with large flows only slightly slower. As k grows AIFO approaches FIFO. FIFO here is a queue of AIFO's size
(20 packets) without admission control. "About 9x" is checked within a factor of 2 (our tolerance).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from ..presets import Check
from . import _aifo
from .common import Done
from .figure import Figure

KS = (0.1, 0.3, 0.5, 0.7, 0.9)
VARIANTS = {
    **{f"AIFO k={k}": {"name": "aifo", "headroom_k": k} for k in KS},
    "FIFO": _aifo.SCHEMES["FIFO"],
    "PIFO": _aifo.SCHEMES["PIFO"],
}
PUBLISHED = {"small_fct_k0.9_over_k0.1": 9.0}


def plot(done: Done, out_dir: Path) -> list[Path]:
    return _aifo.plot_fct(done, out_dir, "headroom_k", "AIFO Figure 8: headroom k", list(VARIANTS))


def checks(done: Done) -> list[Check]:
    out = _aifo.lower_than_each(done, "AIFO k=0.1", ("AIFO k=0.9",))
    xs, low = _aifo.values(done, "AIFO k=0.1", _aifo.small_mean_ms)
    _, high = _aifo.values(done, "AIFO k=0.9", _aifo.small_mean_ms)
    if xs:
        ratio = max(h / l for l, h in zip(low, high, strict=True))
        paper = PUBLISHED["small_fct_k0.9_over_k0.1"]
        out.append(
            Check(
                "small-flow mean FCT, k = 0.9 over k = 0.1 (largest over loads; within a factor 2 of 9)",
                f"{ratio:.2f}x",
                f"about {paper:g}x",
                paper / 2 <= ratio <= paper * 2,
            )
        )
    return out


FIGURE = Figure(
    name="aifo-fig8",
    paper="AIFO",
    title="AIFO Figure 8: the effect of the headroom k",
    shows="small-flow mean and p99 and large-flow mean FCT vs load for AIFO with k = 0.1 to 0.9, FIFO and PIFO",
    schemes=("aifo", "pifo"),
    points=partial(_aifo.points, variants=VARIANTS),
    plot=plot,
    checks=checks,
    table=_aifo.rows,
    published=PUBLISHED,
    notes=(
        "FIFO is a 20-packet queue in arrival order (PIFO with rank = fifo), our reading of the paper's FIFO.",
    ),
)

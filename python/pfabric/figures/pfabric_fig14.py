"""pFabric Figure 14: overall average FCT for three ways of setting a packet's priority.

Priority = bytes sent so far, flow size, or remaining flow size (pFabric's default), against Ideal, vs load,
both workloads. Paper: flow size and remaining size are nearly indistinguishable; bytes sent is worse than
both, yet for data mining bytes sent is still well below PDQ. "Nearly indistinguishable" is read as within
10% at every load (our tolerance). The remaining-size, Ideal and PDQ runs are Figure 7's (shared through the
store); PDQ runs when the core has it.
"""

from __future__ import annotations

from pathlib import Path

from ..presets import Check
from .common import (
    LOAD,
    NFCT,
    WORKLOADS,
    Done,
    fct_points,
    fct_table,
    line_panels,
    mean_nfct,
    scheme_lines,
    series,
)
from .figure import Figure

# Labels as in the runs; "pFabric" is the remaining-size default, shared with Figure 7.
SCHEMES = ("PDQ", "pFabric-BytesSent", "pFabric-FlowSize", "pFabric", "Ideal")
LEGEND = {"pFabric": "pFabric-RemainingFlowSize"}


def points(quick: bool):
    return fct_points(quick, SCHEMES)


def plot(done: Done, out_dir: Path) -> list[Path]:
    panels = []
    for letter, workload in zip("ab", WORKLOADS, strict=False):
        lines = scheme_lines(done, mean_nfct, SCHEMES, legend=LEGEND, workload=workload)
        panels.append(
            {"title": f"({letter}) {workload}", "xlabel": LOAD, "ylabel": f"mean {NFCT}", "lines": lines}
        )
    return line_panels(out_dir, "priority_schemes", panels, "Priority assignment schemes (Figure 14)")


def checks(done: Done) -> list[Check]:
    out = []
    for workload in WORKLOADS:
        xs, fs = series(done, "load", mean_nfct, workload=workload, scheme="pFabric-FlowSize")
        _, rs = series(done, "load", mean_nfct, workload=workload, scheme="pFabric")
        _, bs = series(done, "load", mean_nfct, workload=workload, scheme="pFabric-BytesSent")
        if not xs:
            continue
        diff = max(abs(f / r - 1) for f, r in zip(fs, rs, strict=True))
        out.append(
            Check(
                f"{workload}: flow size and remaining size nearly indistinguishable (within 10%)",
                f"largest difference {diff * 100:.1f}% over {len(xs)} loads",
                "nearly indistinguishable",
                diff <= 0.10,
            )
        )
        margin = min(b / min(f, r) for b, f, r in zip(bs, fs, rs, strict=True))
        out.append(
            Check(
                f"{workload}: bytes sent is worse than the schemes that know the flow size",
                f"bytes sent / best of the two >= {margin:.2f} at every load",
                "worse",
                margin >= 1.0,
            )
        )
        _, pdq = series(done, "load", mean_nfct, workload=workload, scheme="PDQ")
        if workload == "data mining" and len(pdq) == len(xs):
            ratio = max(b / q for b, q in zip(bs, pdq, strict=True))
            out.append(
                Check(
                    "data mining: bytes sent below PDQ at every load",
                    f"bytes sent / PDQ <= {ratio:.2f}",
                    "significantly lower than PDQ",
                    ratio < 1.0,
                )
            )
    return out


FIGURE = Figure(
    name="pfabric-fig14",
    paper="pFabric",
    title="Figure 14: priority assignment schemes",
    shows="mean normalized FCT vs load for pFabric with priority = bytes sent, flow size, remaining size; "
    "Ideal; PDQ; both workloads",
    schemes=("pfabric", "pdq", "ideal"),
    points=points,
    plot=plot,
    checks=checks,
    table=fct_table,
    notes=("The remaining-size, Ideal and PDQ runs are Figure 7's, shared through the store.",),
)

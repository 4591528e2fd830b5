"""Where a partitioned run's windows spend their time, thread by thread: read the logs `window_phases.patch` writes.

Each thread's log holds, per window, its start and the time-stamp counter ticks it spent taking mail in,
running events, flushing cut ports and reporting, and meeting the other threads, with the events it ran and the
packets it took in. This prints each thread's seconds in each phase and its events, then, over both threads:
the wall time the logs span; the ticks per packet taken in, per event run and per window flushing; the ticks the *last* thread to arrive spent meeting (the barrier's own
cost on the critical path) and the ticks from leaving one meeting to starting the next window; the sum over
windows of the busier thread's work (mail, events, flush), which the wall time cannot go below; the busier
thread's own work over the run, which no way of meeting can go below; and what the same work would take if a
thread could run one, two or eight windows ahead of the other.

    git apply bench/experiments/window_phases.patch   # at the commit the patch names
    cargo build --release -p pfabric-core --example bench
    PF_PHASE_LOG=/tmp/ph target/release/examples/bench pfabric-fattree-k16-websearch-0.6-5k@t2
    python bench/experiments/window_phases.py /tmp/ph
"""

from __future__ import annotations

import argparse
import sys

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log", help="the PF_PHASE_LOG prefix: its files are PREFIX.0 and PREFIX.1")
    ap.add_argument(
        "--ghz", type=float, default=2.596, help="time-stamp counter rate (dmesg: 'tsc: Detected')"
    )
    a = ap.parse_args()
    try:
        logs = [np.fromfile(f"{a.log}.{t}", dtype=np.uint64).reshape(-1, 6).astype(np.int64) for t in (0, 1)]
    except (OSError, ValueError) as e:
        sys.exit(f"log = {a.log!r}: {e} (two threads' logs, PREFIX.0 and PREFIX.1, are needed)")
    ticks = a.ghz * 1e9
    windows = min(len(x) for x in logs)
    logs = [x[:windows] for x in logs]
    work = np.stack([x[:, 1] + x[:, 2] + x[:, 3] for x in logs])
    taken = sum(int((x[:, 5] >> 32).sum()) for x in logs)
    events = sum(int((x[:, 5] & 0xFFFFFFFF).sum()) for x in logs)
    last_meeting = sum(int(x[work[t] >= work[1 - t], 4].sum()) for t, x in enumerate(logs))
    between = sum(int((x[1:, 0] - (x[:-1, 0] + x[:-1, 1:5].sum(1))).sum()) for x in logs)
    print(f"windows {windows}  wall {(logs[0][-1, 0] - logs[0][0, 0]) / ticks:.3f} s")
    for t, x in enumerate(logs):
        parts = ", ".join(
            f"{name} {x[:, i].sum() / ticks:.3f} s"
            for i, name in ((1, "mail"), (2, "events"), (3, "flush"), (4, "meeting"))
        )
        print(f"thread {t}: {parts}; {int((x[:, 5] & 0xFFFFFFFF).sum())} events")
    print(f"mail taken in: {sum(int(x[:, 1].sum()) for x in logs) / max(taken, 1):.0f} ticks a packet")
    print(f"events run: {sum(int(x[:, 2].sum()) for x in logs) / max(events, 1):.0f} ticks an event")
    print(
        f"flush and report: {sum(int(x[:, 3].sum()) for x in logs) / windows / 2:.0f} ticks a window a thread"
    )
    print(f"meeting, last to arrive: {last_meeting / windows:.0f} ticks a window")
    print(f"from a meeting to the next window: {between / windows / 2:.0f} ticks a window a thread")
    print(f"busier thread's work, summed: {work.max(0).sum() / ticks:.3f} s")
    print(f"each thread's own work, the busier's: {work.sum(1).max() / ticks:.3f} s")
    # What the same work would take if a thread could run up to `slack` windows ahead of the other (windows
    # shorter than the lookahead would allow that): per-window spread would be absorbed, not the whole run's.
    for slack in (1, 2, 8):
        print(f"the same work with a slack of {slack} window(s): {with_slack(work, slack) / ticks:.3f} s")


def with_slack(work: np.ndarray, slack: int) -> float:
    """When two threads whose windows take `work[t][w]` finish, if a thread may start window w once the other
    has finished window w - 1 - slack (slack 0 is the barrier after every window)."""
    windows = work.shape[1]
    done = np.zeros((2, windows))
    for w in range(windows):
        for t in (0, 1):
            own = done[t, w - 1] if w else 0.0
            other = done[1 - t, w - 1 - slack] if w - 1 - slack >= 0 else 0.0
            done[t, w] = max(own, other) + work[t, w]
    return float(done[:, -1].max())


if __name__ == "__main__":
    main()

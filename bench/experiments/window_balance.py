"""Where two threads' critical path comes from: the blocks' totals, or the spread from window to window.

Reads the log that a bench built with `window_log.patch` writes (`PF_WINDOW_LOG=FILE BENCH SCENARIO@tN`): one
line per block and window, `window_end count_0 count_1 ...`, the window's events in each partition. For two
threads it prints the critical path (the sum over windows of the busier thread's events, as a share of all
events) of three ways to give the partitions to the threads:

- the engine's: the first `--cut` partitions to one thread (consecutive blocks; unset: half of them);
- the split whose totals are the most even (any subset of partitions);
- the split with the shortest critical path among those within 1% of even totals.

    python bench/experiments/window_balance.py /tmp/windows.log --cut 8

The last two search every subset of partitions, so at most 20 partitions.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NoReturn

import numpy as np

MAX_SEARCHED = 20


def fail(message: str) -> NoReturn:
    print(f"window_balance: {message}", file=sys.stderr)
    sys.exit(2)


def read_log(path: Path) -> np.ndarray:
    """Events per window (rows, in time order) and partition (columns); a window's blocks' lines summed."""
    try:
        text = path.read_text()
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    windows: dict[int, np.ndarray] = {}
    width = None
    for n, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        try:
            end, counts = int(fields[0]), np.array([int(x) for x in fields[1:]], dtype=np.int64)
        except ValueError:
            fail(f"{path}:{n}: {line[:60]!r}: expected `window_end count_0 count_1 ...` (integers)")
        if width is None:
            width = len(counts)
        if len(counts) != width or width < 2:
            fail(f"{path}:{n}: {len(counts)} partitions: every line needs the same number, at least 2")
        windows[end] = windows[end] + counts if end in windows else counts
    if not windows:
        fail(f"{path}: no windows")
    return np.array([windows[end] for end in sorted(windows)])


def critical_shares(events: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The critical path of two threads, one running the partitions a row of `masks` marks, as a share of all
    events: for each row, a few rows at a time (a few hundred MB)."""
    per_window = events.sum(axis=1)
    chunk = max(1, 2**25 // len(events))
    out = []
    for i in range(0, len(masks), chunk):
        first = events @ masks[i : i + chunk].T.astype(np.int64)
        out.append(np.maximum(first, per_window[:, None] - first).sum(axis=0) / per_window.sum())
    return np.concatenate(out)


def static_shares(totals: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The busier thread's share of all events over the whole run, for each split (a row of `masks`)."""
    first = masks.astype(np.int64) @ totals
    return np.maximum(first, totals.sum() - first) / totals.sum()


def splits(parts: int) -> np.ndarray:
    """Every split of `parts` partitions in two, partition 0 with the first thread: one mask per row."""
    rows = np.arange(2 ** (parts - 1))[:, None]
    rest = (rows >> np.arange(parts - 1)) & 1
    masks = np.hstack([np.ones((len(rows), 1), dtype=bool), rest.astype(bool)])
    return masks[~masks.all(axis=1)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log", type=Path, help="the file PF_WINDOW_LOG named")
    ap.add_argument("--cut", type=int, help="partitions in the engine's first block (default: half)")
    args = ap.parse_args()
    events = read_log(args.log)
    parts = events.shape[1]
    cut = parts // 2 if args.cut is None else args.cut
    if not 1 <= cut < parts:
        fail(f"--cut {cut}: between 1 and {parts - 1} (the log has {parts} partitions)")
    totals = events.sum(axis=0)
    print(f"{events.shape[0]:,} windows, {int(totals.sum()):,} events, {parts} partitions")
    print("each partition's share: " + " ".join(f"{100 * t / totals.sum():.2f}%" for t in totals))
    rows = []
    engine = np.arange(parts) < cut
    rows.append((f"the engine's (first {cut} partitions)", engine))
    if parts <= MAX_SEARCHED:
        masks = splits(parts)
        shares = static_shares(totals, masks)
        rows.append(("the most even totals", masks[np.argmin(shares)]))
        near = masks[shares <= shares.min() + 0.01]
        rows.append(("the shortest critical path", near[np.argmin(critical_shares(events, near))]))
    else:
        print(f"({parts} partitions: the searches stop at {MAX_SEARCHED})")
    print("| split | first thread's partitions | busier thread's events | critical path |")
    print("| --- | --- | ---: | ---: |")
    chosen = np.array([mask for _, mask in rows])
    for (name, mask), busier, critical in zip(
        rows, static_shares(totals, chosen), critical_shares(events, chosen), strict=True
    ):
        members = " ".join(str(p) for p in np.flatnonzero(mask))
        print(f"| {name} | {members} | {100 * busier:.2f}% | {100 * critical:.2f}% |")


if __name__ == "__main__":
    main()

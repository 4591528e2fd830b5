"""Macro benchmarks: named scenarios through the Python API, each in a fresh process.

Prints, per scenario: packet-hops per CPU-second (a packet, data or ACK, crossing one link: independent of
how the engine splits its work into events), events per CPU-second, CPU and wall time, and peak memory.
CPU time, not wall time, is the figure to compare on a shared machine. Record results in bench/RESULTS.md.

    python bench/run.py                 # the default set
    python bench/run.py NAME [NAME ...] # chosen scenarios; --list shows them
"""

from __future__ import annotations

import json
import platform
import resource
import subprocess
import sys
import time

SCENARIOS = {
    "tcp-websearch-0.6-20k": {"workload": {"load": 0.6, "flows": 20_000}, "scheme": {"name": "tcp"}},
    "pfabric-websearch-0.6-20k": {"workload": {"load": 0.6, "flows": 20_000}, "scheme": {"name": "pfabric"}},
    "pfabric-websearch-0.6-100k": {
        "workload": {"load": 0.6, "flows": 100_000},
        "scheme": {"name": "pfabric"},
    },
    "tcp-fattree1024-websearch-0.6-1m": {
        "topology": {"kind": "fat-tree", "k": 16},
        "workload": {"load": 0.6, "flows": 1_000_000},
        "scheme": {"name": "tcp"},
    },
    # The memory check: a million flows on a 1024-host fat-tree, with a small-flow CDF so it runs in minutes.
    "tcp-fattree1024-smallflows-0.6-1m": {
        "topology": {"kind": "fat-tree", "k": 16},
        "workload": {"load": 0.6, "flows": 1_000_000, "cdf": "aux_yaps_aditya_pfabric_ns2style"},
        "scheme": {"name": "tcp"},
    },
    # Set-up cost: 100 flows, so building the fabric, its routes and its ports is nearly all of the run.
    "setup-fattree-k32": {
        "topology": {"kind": "fat-tree", "k": 32},
        "workload": {"load": 0.6, "flows": 100},
        "scheme": {"name": "pfabric"},
    },
    "setup-fattree-k64": {
        "topology": {"kind": "fat-tree", "k": 64},
        "workload": {"load": 0.6, "flows": 100},
        "scheme": {"name": "pfabric"},
    },
}
DEFAULT = ["tcp-websearch-0.6-20k", "pfabric-websearch-0.6-20k"]

# The child times its own `pfabric.run` call too: the run without the interpreter's start and the import.
CHILD = """
import json, sys, time, pfabric
start = time.process_time()
result = pfabric.run(json.loads(sys.argv[1]))
run_cpu = time.process_time() - start
print(json.dumps({"stats": result.stats, "unfinished": result.summary["flows_unfinished"], "run_cpu_s": run_cpu}))
"""


def run(name: str) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(SCENARIOS[name])], capture_output=True, text=True, check=True
    )
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    data = json.loads(out.stdout)
    stats = data["stats"]
    return {
        "scenario": name,
        "flows": stats["flows_started"],
        "unfinished": data["unfinished"],
        "packet_hops": stats["packet_hops"],
        "events": stats["events"],
        "cpu_s": round(cpu, 2),
        "run_cpu_s": round(data["run_cpu_s"], 2),
        "wall_s": round(wall, 2),
        "core_wall_s": round(stats["wall_s"], 2),
        "mpackethops_per_cpu_s": round(stats["packet_hops"] / cpu / 1e6, 2),
        "mevents_per_cpu_s": round(stats["events"] / cpu / 1e6, 2),
        # ru_maxrss of children is the largest child's peak, in KiB on Linux.
        "peak_rss_mib": round(after.ru_maxrss / 1024),
    }


def main(argv: list[str]) -> int:
    if "--list" in argv:
        print("\n".join(SCENARIOS))
        return 0
    names = argv or DEFAULT
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        print(
            f"bench: unknown scenario {unknown[0]!r}; expected one of: {', '.join(SCENARIOS)}",
            file=sys.stderr,
        )
        return 2
    print(f"# {platform.node()} {platform.machine()} python {platform.python_version()}")
    for name in names:
        r = run(name)
        print(
            f"{r['scenario']}: {r['flows']} flows ({r['unfinished']} unfinished), {r['packet_hops']:,} packet-hops, "
            f"{r['events']:,} events; cpu {r['cpu_s']} s (the run itself {r['run_cpu_s']} s), wall {r['wall_s']} s; "
            f"{r['mpackethops_per_cpu_s']} M packet-hops/cpu-s, {r['mevents_per_cpu_s']} M events/cpu-s; "
            f"peak {r['peak_rss_mib']} MiB",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

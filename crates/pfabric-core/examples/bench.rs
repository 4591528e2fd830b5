//! Named benchmark scenarios, run straight on the core (no Python): prints packet-hops per CPU-second,
//! events per CPU-second, CPU and wall time and peak memory. `bench/run.py` drives the same scenarios through
//! the Python API; see bench/RESULTS.md.
//!
//! cargo run --release -p pfabric-core --example bench -- [--parallelism] [SCENARIO ...]
//!
//! A scenario name may end in `@tN`: the same scenario with `run.threads = N` (the partitioned engine on N
//! threads; `@t1`, as the bare name, the sequential engine, which gives the same results), or in `@pN`: the
//! partitioned engine on N threads even for one (what its windows cost on one core), and then in
//! `/PARTITION`: how it cuts the fabric (`run.partition`). Besides the named scenarios below, any
//! `pfabric-fattree-kK-websearch-LOAD-N` (N as `200k`, `1m` or a number) runs pFabric with web-search flows, and
//! `phost-`, `homa-` or `ndp-fattree-...` the receiver-driven schemes on the same, and any
//! `pfabric-fattree-kK-spanN-F` (F as `20k`) pFabric with web-search flows among N of the fabric's hosts.
//!
//! `--parallelism` then runs the scenario again, charging every event to a rack and a window of the
//! lookahead, and prints what a conservative parallel engine could overlap (`metrics::parallelism`), with a
//! barrier's cost measured here between two threads.

use std::time::Instant;

use pfabric_core::metrics::parallelism::{WindowProfile, THREADS};
use pfabric_core::{ScenarioConfig, Simulation};
use serde_json::{json, Value};

const WEBSEARCH_PKTS: [f64; 12] = [6., 6., 13., 19., 33., 53., 133., 667., 1333., 3333., 6667., 20000.];
const WEBSEARCH_CDF: [f64; 12] = [0., 0.15, 0.2, 0.3, 0.4, 0.53, 0.6, 0.7, 0.8, 0.9, 0.97, 1.];

fn websearch(load: f64, flows: u64) -> Value {
    json!({"kind": "poisson", "load": load, "flows": flows, "cdf": {
        "size_bytes": WEBSEARCH_PKTS.iter().map(|p| p * 1460.0).collect::<Vec<_>>(),
        "cdf": WEBSEARCH_CDF.to_vec(), "interpolation": "linear"}})
}

/// The small-flow CDF (YAPS "aditya", mean 134 packets), in packets of 1460 bytes.
fn small_flows(load: f64, flows: u64) -> Value {
    let pkts = [1., 1., 2., 3., 5., 7., 40., 72., 137., 267., 1187., 2107.];
    let cdf = [0., 0.5, 0.6, 0.7, 0.75, 0.8, 0.8125, 0.825, 0.85, 0.9, 0.95, 1.];
    json!({"kind": "poisson", "load": load, "flows": flows, "cdf": {
        "size_bytes": pkts.iter().map(|p| p * 1460.0).collect::<Vec<_>>(), "cdf": cdf.to_vec(), "interpolation": "linear"}})
}

fn scenario(name: &str) -> Option<Value> {
    let leaf_spine = json!({"kind": "leaf-spine"});
    Some(match name {
        "tcp-websearch-0.6-20k" => {
            json!({"topology": leaf_spine, "workload": websearch(0.6, 20_000), "scheme": {"name": "tcp"}})
        }
        "pfabric-websearch-0.6-500" => {
            json!({"topology": leaf_spine, "workload": websearch(0.6, 500), "scheme": {"name": "pfabric"}})
        }
        // A rank-based port on every link (AIFO, SRPT ranks, over the AIFO authors' hosts): the ranked path.
        "aifo-websearch-0.6-500" => {
            json!({"topology": leaf_spine, "workload": websearch(0.6, 500), "scheme": {"name": "aifo"}})
        }
        "pfabric-websearch-0.6-2k" => {
            json!({"topology": leaf_spine, "workload": websearch(0.6, 2_000), "scheme": {"name": "pfabric"}})
        }
        "pfabric-websearch-0.6-20k" => {
            json!({"topology": leaf_spine, "workload": websearch(0.6, 20_000), "scheme": {"name": "pfabric"}})
        }
        "pfabric-websearch-0.6-100k" => {
            json!({"topology": leaf_spine, "workload": websearch(0.6, 100_000), "scheme": {"name": "pfabric"}})
        }
        // pHost's receiver-driven hosts over the same fabric and flows (issue "The receiver-driven schemes": CPU
        // per packet-hop within 1.3x of pFabric's).
        "phost-websearch-0.6-2k" => {
            json!({"topology": leaf_spine, "workload": websearch(0.6, 2_000), "scheme": {"name": "phost"}})
        }
        "phost-websearch-0.6-20k" => {
            json!({"topology": leaf_spine, "workload": websearch(0.6, 20_000), "scheme": {"name": "phost"}})
        }
        // Homa's hosts over 8 strict-priority levels, same fabric and flows (the same 1.3x target).
        "homa-websearch-0.6-2k" => {
            json!({"topology": leaf_spine, "workload": websearch(0.6, 2_000), "scheme": {"name": "homa"}})
        }
        "homa-websearch-0.6-20k" => {
            json!({"topology": leaf_spine, "workload": websearch(0.6, 20_000), "scheme": {"name": "homa"}})
        }
        // NDP's hosts over trimming ports, same fabric and flows (the same 1.3x target).
        "ndp-websearch-0.6-2k" => {
            json!({"topology": leaf_spine, "workload": websearch(0.6, 2_000), "scheme": {"name": "ndp"}})
        }
        "ndp-websearch-0.6-20k" => {
            json!({"topology": leaf_spine, "workload": websearch(0.6, 20_000), "scheme": {"name": "ndp"}})
        }
        // The leaf-spine's own 20,000 flows (web search, load 0.6 of its 144 hosts), their hosts spread over
        // the k = 32 fat-tree, one per edge switch, in every pod: the same traffic on a fabric 57 times larger,
        // which tells what fabric size itself costs a packet-hop from what more flows in flight cost (the same
        // flow count over 8,192 hosts keeps fourteen times as many alive).
        "pfabric-fattree-k32-leafspine-flows-20k" => leaf_spine_flows_on_fat_tree(32, 20_000),
        "pfabric-fattree-k32-leafspine-flows-5k" => leaf_spine_flows_on_fat_tree(32, 5_000),
        "pfabric-fattree-k32-leafspine-flows-2k" => leaf_spine_flows_on_fat_tree(32, 2_000),
        // The same on the k = 16 and k = 64 fat-trees: one traffic on fabrics of 1,024 to 65,536 hosts.
        "pfabric-fattree-k16-leafspine-flows-20k" => leaf_spine_flows_on_fat_tree(16, 20_000),
        "pfabric-fattree-k64-leafspine-flows-20k" => leaf_spine_flows_on_fat_tree(64, 20_000),
        "tcp-fattree1024-websearch-0.6-1m" => {
            json!({"topology": {"kind": "fat-tree", "k": 16}, "workload": websearch(0.6, 1_000_000), "scheme": {"name": "tcp"}})
        }
        "tcp-fattree1024-smallflows-0.6-20k" => json!({"topology": {"kind": "fat-tree", "k": 16},
            "workload": small_flows(0.6, 20_000), "scheme": {"name": "tcp"}}),
        _ => return fat_tree_websearch(name).or_else(|| spanned_flows(name)),
    })
}

/// `pfabric-fattree-kK-spanN-F`: F web-search flows at load 0.6 among N hosts (as many flows a second as N
/// hosts of the fat-tree's rate take at that load), the hosts spread evenly over the k = K fat-tree. One fabric,
/// traffic spanning more and more of it: at N = k^3/4 it is the fabric's own workload, and what a packet-hop
/// costs follows how many flows and packets are alive at once, not the fabric's size.
fn spanned_flows(name: &str) -> Option<Value> {
    let rest = name.strip_prefix("pfabric-fattree-k")?;
    let (k, rest) = rest.split_once("-span")?;
    let (span, flows) = rest.split_once('-')?;
    let (k, span) = (k.parse::<u32>().ok()?, span.parse::<u32>().ok()?);
    let flows = flows.strip_suffix('k')?.parse::<u64>().ok()? * 1_000;
    let hosts = k * k * k / 4;
    if span < 2 || span > hosts {
        return None;
    }
    let star = json!({"topology": {"kind": "star", "hosts": span}, "workload": websearch(0.6, flows),
        "scheme": {"name": "pfabric"}});
    Some(flows_spread_over_fat_tree(&star, k))
}

/// `SCHEME-fattree-kK-websearch-LOAD-N`: pFabric (or `phost`, `homa`, `ndp`) with web-search flows at load LOAD
/// on a k = K fat-tree, N flows (`20k`, `1m` or a number). The issue "Scale" fabrics run the same 20,000 flows
/// on 1,024, 8,192 and 65,536 hosts (`-k16-`, `-k32-`, `-k64-websearch-0.6-20k`: cost per packet-hop against
/// size); `-1k` on k = 16 is short enough to count instructions under callgrind, `-5k` and `-2k` on k = 32
/// compare builds' cache work in less than the 20k run's minute; the moonshot (DESIGN.md section 8) measures
/// k = 64 at 100k and 200k.
fn fat_tree_websearch(name: &str) -> Option<Value> {
    let (scheme, rest) = name.split_once("-fattree-k")?;
    if !["pfabric", "phost", "homa", "ndp"].contains(&scheme) {
        return None;
    }
    let (k, rest) = rest.split_once("-websearch-")?;
    let (load, flows) = rest.split_once('-')?;
    let (k, load) = (k.parse::<u32>().ok()?, load.parse::<f64>().ok()?);
    let flows = match flows.as_bytes().last()? {
        b'k' => flows[..flows.len() - 1].parse::<u64>().ok()? * 1_000,
        b'm' => flows[..flows.len() - 1].parse::<u64>().ok()? * 1_000_000,
        _ => flows.parse::<u64>().ok()?,
    };
    Some(
        json!({"topology": {"kind": "fat-tree", "k": k}, "workload": websearch(load, flows), "scheme": {"name": scheme}}),
    )
}

/// The paper leaf-spine's web-search flows (load 0.6 of its 144 hosts, the `pfabric-websearch-0.6-*`
/// scenarios' own flows), replayed as a trace on a k-ary fat-tree: leaf-spine host h becomes host h x
/// (hosts / 144), which spreads them over every pod (from k = 32 on, each on an edge switch of its own).
fn leaf_spine_flows_on_fat_tree(k: u32, flows: u64) -> Value {
    let leaf_spine = json!({"topology": {"kind": "leaf-spine"}, "workload": websearch(0.6, flows),
        "scheme": {"name": "pfabric"}});
    flows_spread_over_fat_tree(&leaf_spine, k)
}

/// The flows of scenario `from` as a trace on the k = `k` fat-tree, its host i the fat-tree's host i x stride.
fn flows_spread_over_fat_tree(from: &Value, k: u32) -> Value {
    let cfg = ScenarioConfig::from_value(from).expect("valid scenario");
    let stride = (k * k * k / 4) / cfg.topology.hosts();
    let mut arrivals = cfg.workload.into_arrivals(&cfg.topology.build(), &cfg.topology, cfg.seed);
    let (mut start_s, mut src, mut dst, mut size_bytes) = (vec![], vec![], vec![], vec![]);
    while let Some(f) = arrivals.next_flow() {
        start_s.push(f.start as f64 / 1e12);
        src.push(f.src * stride);
        dst.push(f.dst * stride);
        size_bytes.push(f.size_bytes);
    }
    json!({"topology": {"kind": "fat-tree", "k": k}, "scheme": {"name": "pfabric"}, "workload": {"kind": "trace",
        "start_s": start_s, "src": src, "dst": dst, "size_bytes": size_bytes}})
}

/// (user + system CPU seconds, peak resident MiB) of this process, from /proc.
fn cpu_and_peak_mem() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    // Fields 14 and 15 of stat (utime, stime) are at 11 and 12 after the command name.
    let cpu = (ticks(11) + ticks(12)) / 100.0;
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let hwm_kb = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|x| x.parse::<f64>().ok())
        .unwrap_or(0.0);
    (cpu, hwm_kb / 1024.0)
}

/// Wall nanoseconds per wait of a barrier between two threads (each spins on the other's count).
fn barrier_ns() -> f64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    const ROUNDS: u64 = 200_000;
    let counts = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
    let other = Arc::clone(&counts);
    let start = Instant::now();
    let peer = std::thread::spawn(move || {
        for r in 1..=ROUNDS {
            other[1].store(r, Ordering::Release);
            while other[0].load(Ordering::Acquire) < r {
                std::hint::spin_loop();
            }
        }
    });
    for r in 1..=ROUNDS {
        counts[0].store(r, Ordering::Release);
        while counts[1].load(Ordering::Acquire) < r {
            std::hint::spin_loop();
        }
    }
    peer.join().unwrap();
    start.elapsed().as_nanos() as f64 / ROUNDS as f64
}

/// The parallelism profile: windows, events per window, critical path and speed-up bounds per thread count,
/// with no barrier cost and with a barrier of `barrier_ns` x log2(threads) (a dissemination barrier's rounds).
fn print_parallelism(p: &WindowProfile, ns_per_event: f64, barrier_ns: f64) {
    println!(
        "  racks {}, lookahead {:.1} ns, {} windows with events, {:.1} events per window, barrier {:.0} ns per round ({:.1} events)",
        p.racks,
        p.lookahead as f64 / 1e3,
        p.windows,
        p.events as f64 / p.windows.max(1) as f64,
        barrier_ns,
        barrier_ns / ns_per_event
    );
    for (i, &threads) in THREADS.iter().enumerate() {
        let rounds = (threads as f64).log2().ceil().max(1.0);
        let barrier_events = if threads == 1 { 0.0 } else { rounds * barrier_ns / ns_per_event };
        println!(
            "  threads {threads:>3}: critical path {:.1}% of events, speed-up bound {:.2} (no barrier), {:.2} (barrier)",
            100.0 * p.critical[i] as f64 / p.events.max(1) as f64,
            p.speedup(i, 0.0),
            p.speedup(i, barrier_events)
        );
    }
}

fn main() {
    let mut names: Vec<String> = std::env::args().skip(1).collect();
    let profile = names.iter().any(|n| n == "--parallelism");
    names.retain(|n| n != "--parallelism");
    if names.is_empty() {
        names = vec!["tcp-websearch-0.6-20k".into(), "pfabric-websearch-0.6-20k".into()];
    }
    for name in names {
        // `NAME@tN`, `NAME@pN`, each with `/PARTITION` or not.
        let (name_part, partition) = match name.split_once('/') {
            Some((n, p)) => (n.to_string(), Some(p.to_string())),
            None => (name.clone(), None),
        };
        let engine_only = name_part.rsplit_once("@p").is_some_and(|(_, n)| n.parse::<u32>().is_ok());
        let (base, threads) = match name_part.rsplit_once(if engine_only { "@p" } else { "@t" }) {
            Some((base, n)) => match n.parse::<u32>() {
                Ok(n) => (base, Some(n)),
                Err(_) => {
                    eprintln!("scenario {name}: @t must be followed by a thread count");
                    std::process::exit(2);
                }
            },
            None => (name_part.as_str(), None),
        };
        let Some(mut v) = scenario(base) else {
            eprintln!("unknown scenario {name}");
            std::process::exit(2);
        };
        if let Some(n) = threads {
            v["run"] = json!({"threads": n, "partition": partition});
        }
        let cfg = match ScenarioConfig::from_value(&v) {
            Ok(cfg) => cfg,
            Err(e) => {
                eprintln!("scenario {name}: {e}");
                std::process::exit(2);
            }
        };
        let (cpu0, _) = cpu_and_peak_mem();
        let wall = Instant::now();
        let mut sim = if engine_only { Simulation::partitioned(cfg.clone()) } else { Simulation::new(cfg.clone()) };
        let (cpu_built, _) = cpu_and_peak_mem();
        sim.run();
        let wall_s = wall.elapsed().as_secs_f64();
        let (cpu1, peak_mib) = cpu_and_peak_mem();
        let cpu_s = (cpu1 - cpu0).max(1e-9);
        let c = sim.counters();
        println!(
            "{name}: partitions {} windows {} handovers {} critical {:.1}%  flows {}/{}  events {}  packet-hops {}  cpu {:.2} s  wall {:.2} s  {:.2} M packet-hops/cpu-s  {:.2} M events/cpu-s  peak {:.0} MiB  sim {:.3} s  peak events {} peak flows {} peak pkts {}  set-up cpu {:.2} s",
            sim.partitions(), sim.windows(), c.handovers,
            100.0 * sim.critical_events() as f64 / c.events.max(1) as f64, c.flows_finished, c.flows_started, c.events, c.packet_hops, cpu_s, wall_s,
            c.packet_hops as f64 / cpu_s / 1e6, c.events as f64 / cpu_s / 1e6, peak_mib, sim.now() as f64 / 1e12,
            sim.peak_pending_events(), c.peak_active_flows, c.peak_live_packets, cpu_built - cpu0
        );
        if profile {
            // A second run, profiled: the first one's time per event is the one a thread would spend.
            let ns_per_event = cpu_s * 1e9 / c.events.max(1) as f64;
            let mut profiled = Simulation::new(cfg);
            profiled.profile_parallelism();
            profiled.run();
            print_parallelism(profiled.parallelism().expect("profiled"), ns_per_event, barrier_ns());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fat_tree_web_search_name_gives_its_fabric_load_and_flows() {
        for (name, k, load, flows) in [
            ("pfabric-fattree-k16-websearch-0.6-20k", 16, 0.6, 20_000),
            ("pfabric-fattree-k32-websearch-0.6-2k", 32, 0.6, 2_000),
            ("pfabric-fattree-k64-websearch-0.5-1m", 64, 0.5, 1_000_000),
            ("pfabric-fattree-k8-websearch-0.6-300", 8, 0.6, 300),
        ] {
            let want = json!({"topology": {"kind": "fat-tree", "k": k}, "workload": websearch(load, flows), "scheme": {"name": "pfabric"}});
            assert_eq!(scenario(name), Some(want), "{name}");
        }
        let homa = json!({"topology": {"kind": "fat-tree", "k": 16}, "workload": websearch(0.6, 5_000), "scheme": {"name": "homa"}});
        assert_eq!(scenario("homa-fattree-k16-websearch-0.6-5k"), Some(homa));
    }

    #[test]
    fn a_malformed_name_is_no_scenario() {
        for name in [
            "pfabric-fattree-kx-websearch-0.6-20k",
            "pfabric-fattree-k64-websearch-0.6",
            "pfabric-fattree-k64-websearch-high-20k",
            "pfabric-fattree-k64-websearch-0.6-20g",
            "pfabric-fattree-k64-websearch-0.6-k",
            "tcp-fattree-k64-websearch-0.6-20k",
        ] {
            assert!(scenario(name).is_none(), "{name}");
        }
    }
}

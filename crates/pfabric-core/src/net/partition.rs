//! The fabric cut into partitions: what the parallel engine runs side by side, and what the parallelism
//! profile charges events to.
//!
//! A *rack* is an edge switch (one that hosts attach to) and its hosts. *Groups* join racks whose edge switches
//! share a switch that reaches some but not all of the edge switches: a fat-tree's pods (joined by their
//! aggregation switches), while a leaf-spine's spines, which reach every leaf, join nothing, so there a group
//! is a rack. Every switch not yet placed then joins, nearest the hosts first, the partition among its
//! neighbours' that has the fewest switches so far: a fat-tree's cores and a leaf-spine's spines spread evenly.
//! A partitioned run then shares those top switches out among the partitions below them where it can
//! ([`Partitioning::shared_out`]): each of their ports is run by the partition it leads into.
//!
//! The partitions depend on the topology alone, never on a thread count: a partitioned run gives the same
//! results on any number of threads.

use crate::net::packet::PacketFormat;
use crate::net::topology::{PortSpec, Topology};
use crate::sim::time::{serialization_ps, Time};

/// How a partitioned run cuts the fabric: by groups of racks (a fat-tree's pods), by racks,
/// hosts apart from switches (the switches one partition, each rack's hosts another: only host links are cut,
/// whose delay is long on the paper's fabric, 2.7 us against 0.2 us, so windows are 13 times longer), or
/// every node on its own (every link cut: for tests and small fabrics, as its mailboxes grow with the square
/// of the nodes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartitionKind {
    Groups,
    Racks,
    Hosts,
    Nodes,
}

impl PartitionKind {
    pub const NAMES: [&'static str; 4] = ["groups", "racks", "hosts", "nodes"];

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "groups" => Some(PartitionKind::Groups),
            "racks" => Some(PartitionKind::Racks),
            "hosts" => Some(PartitionKind::Hosts),
            "nodes" => Some(PartitionKind::Nodes),
            _ => None,
        }
    }
}

/// The most nodes a fabric cut node by node may have (its mailboxes: two per ordered pair of nodes).
pub const MAX_NODE_PARTITIONS: u32 = 1024;

/// Each node's partition, and the window length that the cut links allow.
pub struct Partitioning {
    /// Partition of each node.
    pub part_of: Vec<u32>,
    pub parts: usize,
    /// The least time a packet takes to cross a cut link: its propagation plus the serialization of the
    /// smallest packet. Nothing sent in a window this long can reach another partition within it. Without a
    /// cut (one partition), the least such time over all links.
    pub lookahead: Time,
    /// Whether a port from a switch down to a host of another partition belongs to the host's partition
    /// (hosts apart from switches): see [`Partitioning::fed_from_afar`].
    pub hosts_own_downlinks: bool,
    /// By node: whether the switch is shared out among the partitions below it ([`Partitioning::shared_out`]).
    /// Empty where none is.
    pub shared: Vec<bool>,
}

impl Partitioning {
    /// The partitions `kind` makes of `topo`.
    pub fn of(kind: PartitionKind, topo: &Topology) -> Self {
        match kind {
            PartitionKind::Groups => Self::groups(topo),
            PartitionKind::Racks => Self::racks(topo),
            PartitionKind::Hosts => {
                // Partition 0: every switch; then each rack's hosts.
                let (rack_of, racks) = racks_of(topo);
                let part_of = (0..topo.nodes as usize)
                    .map(|n| if n < topo.hosts as usize { rack_of[n] + 1 } else { 0 })
                    .collect();
                // A host's downlink is the host's: the switches' partition, which holds most of the work, sheds
                // the queueing at every port down to a host (DESIGN.md section 8).
                Self::placed(topo, part_of, racks + 1, true)
            }
            PartitionKind::Nodes => Self::placed(topo, (0..topo.nodes).collect(), topo.nodes, false),
        }
    }

    /// One partition per rack.
    pub fn racks(topo: &Topology) -> Self {
        let (part_of, parts) = racks_of(topo);
        Self::placed(topo, part_of, parts, false)
    }

    /// Racks joined into groups (a fat-tree's pods; a leaf-spine's racks): the parallel engine's partitions.
    pub fn groups(topo: &Topology) -> Self {
        let (rack_of, racks) = racks_of(topo);
        // Union-find over racks, joined through switches that reach more than one edge switch but not all.
        let mut parent: Vec<u32> = (0..racks).collect();
        fn root(parent: &mut [u32], mut x: u32) -> u32 {
            while parent[x as usize] != x {
                parent[x as usize] = parent[parent[x as usize] as usize];
                x = parent[x as usize];
            }
            x
        }
        for s in topo.hosts..topo.nodes {
            if rack_of[s as usize] != u32::MAX {
                continue; // an edge switch
            }
            let mut reached: Vec<u32> = topo
                .ports_of(s)
                .map(|p| topo.ports[p as usize].peer_node)
                .filter(|&n| n >= topo.hosts && rack_of[n as usize] != u32::MAX)
                .map(|n| rack_of[n as usize])
                .collect();
            reached.sort_unstable();
            reached.dedup();
            if reached.len() > 1 && reached.len() < racks as usize {
                for pair in reached.windows(2) {
                    let (a, b) = (root(&mut parent, pair[0]), root(&mut parent, pair[1]));
                    parent[a.max(b) as usize] = a.min(b);
                }
            }
        }
        // Groups numbered in order of their first rack.
        let mut number = vec![u32::MAX; racks as usize];
        let mut groups = 0;
        for r in 0..racks {
            let g = root(&mut parent, r) as usize;
            if number[g] == u32::MAX {
                number[g] = groups;
                groups += 1;
            }
        }
        let part_of = rack_of
            .iter()
            .map(|&r| if r == u32::MAX { u32::MAX } else { number[root(&mut parent, r) as usize] })
            .collect();
        Self::placed(topo, part_of, groups, false)
    }

    /// Place the switches not yet in a partition, and find the lookahead (with the ports down to hosts of
    /// other partitions theirs, if `hosts_own_downlinks`).
    fn placed(topo: &Topology, mut part_of: Vec<u32>, parts: u32, hosts_own_downlinks: bool) -> Self {
        let mut switches_in = vec![0u32; parts.max(1) as usize];
        for s in topo.hosts..topo.nodes {
            if part_of[s as usize] != u32::MAX {
                switches_in[part_of[s as usize] as usize] += 1;
            }
        }
        loop {
            let mut joined = Vec::new();
            for s in topo.hosts..topo.nodes {
                if part_of[s as usize] != u32::MAX {
                    continue;
                }
                let best = topo
                    .ports_of(s)
                    .map(|p| part_of[topo.ports[p as usize].peer_node as usize])
                    .filter(|&r| r != u32::MAX)
                    .min_by_key(|&r| (switches_in[r as usize], r));
                if let Some(r) = best {
                    joined.push((s, r));
                    switches_in[r as usize] += 1;
                }
            }
            if joined.is_empty() {
                break;
            }
            for (s, r) in joined {
                part_of[s as usize] = r;
            }
        }
        // Nodes no host can reach (none in a connected fabric) go to partition 0.
        for r in part_of.iter_mut().filter(|r| **r == u32::MAX) {
            *r = 0;
        }
        Partitioning { part_of, parts: parts.max(1) as usize, lookahead: 0, hosts_own_downlinks, shared: Vec::new() }
            .with_lookahead(topo)
    }

    /// The same cut with the fabric's top switches shared out among the partitions below them. A switch is
    /// shared out where it has one way down to every host, each port down leading into the partition of the
    /// hosts it leads to (a fat-tree's cores cut by pods, a leaf-spine's spines cut by racks), and no neighbour
    /// is shared out too. Each of its ports then belongs to the partition at its far end, and a packet sent up
    /// to it is handed straight to the partition of its destination, which runs the switch's arrival (routing,
    /// which reads no state but the port out, and queueing at that port): a packet between two pods crosses one
    /// cut instead of two, and the switch's events fall where its traffic goes. Where nothing is left to route
    /// by the switch's own partition, its `part_of` entry is only where it was placed.
    ///
    /// Not with hosts apart from switches (the switches are one partition), nor for NDP, whose switches send a
    /// trimmed header back the way it came at once (a port of another partition here).
    pub fn shared_out(mut self, topo: &Topology) -> Self {
        if self.hosts_own_downlinks || self.parts < 2 {
            return self;
        }
        let (rack_of, _) = racks_of(topo);
        // Each edge switch and a host below it: the routes of a switch are the same towards all its hosts.
        let mut edges: Vec<(u32, u32)> = (0..topo.hosts).map(|h| (topo.edge_switch(h), h)).collect();
        edges.sort_unstable();
        edges.dedup_by_key(|e| e.0);
        let mut shared = vec![false; topo.nodes as usize];
        for s in topo.hosts..topo.nodes {
            if rack_of[s as usize] != u32::MAX {
                continue; // an edge switch
            }
            let ways_down_are_the_hosts = edges.iter().all(|&(_, h)| match &*topo.next_hops(s, h) {
                [port] => self.part_of[topo.ports[*port as usize].peer_node as usize] == self.part_of[h as usize],
                _ => false,
            });
            let parts_below = {
                let mut below: Vec<u32> =
                    topo.ports_of(s).map(|p| self.part_of[topo.ports[p as usize].peer_node as usize]).collect();
                below.sort_unstable();
                below.dedup();
                below.len()
            };
            shared[s as usize] = ways_down_are_the_hosts && parts_below > 1;
        }
        // A switch whose neighbour is shared out too stays whole (a packet between two such would cross no cut).
        let whole: Vec<u32> = (topo.hosts..topo.nodes)
            .filter(|&s| {
                shared[s as usize] && topo.ports_of(s).any(|p| shared[topo.ports[p as usize].peer_node as usize])
            })
            .collect();
        for s in whole {
            shared[s as usize] = false;
        }
        if !shared.iter().any(|&x| x) {
            return self;
        }
        self.shared = shared;
        self.with_lookahead(topo)
    }

    /// Whether node `node` is a switch shared out among the partitions below it.
    #[inline]
    pub fn is_shared(&self, node: u32) -> bool {
        self.shared.get(node as usize).copied().unwrap_or(false)
    }

    /// The lookahead of a run whose smallest packet is `wire_bytes` (its packet format's headers): the
    /// partitions' own is for the default format.
    pub fn with_smallest_packet(mut self, topo: &Topology, wire_bytes: u32) -> Self {
        self.lookahead = self.lookahead_of(topo, wire_bytes);
        self
    }

    /// The lookahead for the default format's smallest packet.
    fn with_lookahead(self, topo: &Topology) -> Self {
        self.with_smallest_packet(topo, PacketFormat::DEFAULT.control_wire_bytes())
    }

    /// Whether port `port` (of `topo`) is fed from afar: it leads from a switch down to a host of another
    /// partition, and belongs to the host's (`hosts_own_downlinks`). The switch hands each packet over as it
    /// would queue it there, and the host's partition queues it at the start of the next window; so that a
    /// departure is decided only once every packet queued before it is there, windows are no longer than the
    /// link's propagation delay, and an arrival from such a port brings it up to date only to one delay ago.
    pub fn fed_from_afar(&self, topo: &Topology, port: &PortSpec) -> bool {
        self.hosts_own_downlinks && port.node >= topo.hosts && port.peer_node < topo.hosts && self.is_cut(port)
    }

    /// The partition that holds port `port`'s state and runs it: its node's, or for a port fed from afar its
    /// host's.
    pub fn owner(&self, topo: &Topology, port: &PortSpec) -> u32 {
        let far = self.fed_from_afar(topo, port) || self.is_shared(port.node);
        self.part_of[if far { port.peer_node } else { port.node } as usize]
    }

    /// The least time between a packet's leaving one partition and its effect on another, at least 1 ps: over
    /// cut links (any link if none is cut), a packet of `wire_bytes` crossing one (its propagation plus its
    /// serialization), or for a port fed from afar its propagation alone.
    fn lookahead_of(&self, topo: &Topology, wire_bytes: u32) -> Time {
        let crossing = |p: &PortSpec| {
            p.delay_ps + if self.fed_from_afar(topo, p) { 0 } else { serialization_ps(wire_bytes as u64, p.rate_bps) }
        };
        let cut = topo.ports.iter().filter(|p| self.is_cut(p));
        cut.map(crossing).min().or_else(|| topo.ports.iter().map(crossing).min()).unwrap_or(1).max(1)
    }

    /// Whether a port's link crosses between partitions: a link up to a switch shared out always does (its
    /// packets are handed to their destination's partition, which may be the port's own), a link down from one
    /// never (its port is run by the partition at its far end).
    pub fn is_cut(&self, port: &PortSpec) -> bool {
        if self.is_shared(port.peer_node) {
            return true;
        }
        !self.is_shared(port.node) && self.part_of[port.node as usize] != self.part_of[port.peer_node as usize]
    }
}

/// Each node's rack (u32::MAX for switches no host attaches to), and the number of racks.
fn racks_of(topo: &Topology) -> (Vec<u32>, u32) {
    let mut rack_of = vec![u32::MAX; topo.nodes as usize];
    let mut racks = 0u32;
    for h in 0..topo.hosts {
        let edge = topo.edge_switch(h);
        if rack_of[edge as usize] == u32::MAX {
            rack_of[edge as usize] = racks;
            racks += 1;
        }
        rack_of[h as usize] = rack_of[edge as usize];
    }
    (rack_of, racks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::topology::{dumbbell, fat_tree, leaf_spine, star, LinkParams};

    fn links() -> LinkParams {
        LinkParams::PAPER
    }

    #[test]
    fn a_fat_trees_groups_are_its_pods_and_its_cores_spread_over_them() {
        let t = fat_tree(8, links());
        let p = Partitioning::groups(&t);
        assert_eq!(p.parts, 8);
        // Hosts 0-15 and edge switches 0-3 and aggregation switches 0-3 (pod 0) in partition 0.
        assert!((0..16).all(|h| p.part_of[h] == 0));
        let (edges, aggs) = (t.hosts as usize, t.hosts as usize + 32);
        assert!((edges..edges + 4).chain(aggs..aggs + 4).all(|s| p.part_of[s] == 0));
        let mut cores = vec![0; 8];
        for c in aggs + 32..t.nodes as usize {
            cores[p.part_of[c] as usize] += 1;
        }
        assert_eq!(cores, vec![2; 8], "16 cores over 8 pods");
        // Only aggregation-core links are cut: 40 Gbps, 200 ns.
        assert_eq!(p.lookahead, 200_000 + 8_000);
        assert!(t.ports.iter().filter(|q| p.is_cut(q)).all(|q| q.label == "agg->core" || q.label == "core->agg"));
    }

    #[test]
    fn a_leaf_spines_groups_are_its_racks() {
        let t = leaf_spine(9, 16, 4, links());
        let p = Partitioning::groups(&t);
        assert_eq!(p.parts, 9);
        assert_eq!(Partitioning::racks(&t).part_of, p.part_of);
        let spines: Vec<u32> = (t.hosts + 9..t.nodes).map(|s| p.part_of[s as usize]).collect();
        assert_eq!(spines, vec![0, 1, 2, 3]);
    }

    #[test]
    fn hosts_apart_from_switches_cut_only_host_links() {
        let t = leaf_spine(9, 16, 4, links());
        let p = Partitioning::of(PartitionKind::Hosts, &t);
        assert_eq!(p.parts, 10);
        assert!((t.hosts..t.nodes).all(|s| p.part_of[s as usize] == 0));
        assert_eq!(p.part_of[17], 2, "host 17 is in rack 1");
        // The ports down to the hosts are the hosts' (fed from afar): the lookahead is their propagation
        // alone, 2.7 us (link and host delay), not that of a 40-byte packet across a host's link up (+32 ns).
        assert_eq!(p.lookahead, 2_700_000);
        for port in &t.ports {
            let down = port.node >= t.hosts && port.peer_node < t.hosts;
            assert_eq!(p.fed_from_afar(&t, port), down, "{}", port.label);
            let runs_it = if down { port.peer_node } else { port.node };
            assert_eq!(p.owner(&t, port), p.part_of[runs_it as usize]);
        }
        // Other cuts keep every port with its node.
        let racks = Partitioning::racks(&t);
        assert!(!racks.hosts_own_downlinks && t.ports.iter().all(|q| !racks.fed_from_afar(&t, q)));
    }

    #[test]
    fn a_fat_trees_cores_are_shared_out_among_its_pods_and_a_leaf_spines_spines_among_its_racks() {
        let t = fat_tree(8, links());
        let p = Partitioning::groups(&t).shared_out(&t);
        let cores = t.hosts + 64..t.nodes;
        assert!((0..t.nodes).all(|n| p.is_shared(n) == cores.contains(&n)), "the cores alone");
        for port in &t.ports {
            let (up, down) = (p.is_shared(port.peer_node), p.is_shared(port.node));
            // A core's port belongs to the pod below it; a link up to a core is cut, one down from it is not.
            let runs_it = if down { port.peer_node } else { port.node };
            assert_eq!(p.owner(&t, port), p.part_of[runs_it as usize], "{}", port.label);
            assert_eq!(p.is_cut(port), up, "{}", port.label);
            // The port a core sends a packet down by leads into its destination's pod.
            if down {
                for h in 0..t.hosts {
                    let towards = &*t.next_hops(port.node, h);
                    assert_eq!(towards.len(), 1);
                    let below = p.part_of[t.ports[towards[0] as usize].peer_node as usize];
                    assert_eq!(below, p.part_of[h as usize], "core {} towards host {h}", port.node);
                }
            }
        }
        // The links cut are the same kind as before (aggregation to core), so the windows are as long.
        assert_eq!(p.lookahead, Partitioning::groups(&t).lookahead);

        let ls = leaf_spine(9, 16, 4, links());
        let racks = Partitioning::racks(&ls).shared_out(&ls);
        assert!((0..ls.nodes).all(|n| racks.is_shared(n) == (n >= ls.hosts + 9)), "the spines alone");
        assert_eq!(racks.lookahead, 200_000 + 8_000, "a 40-byte packet up a 40 Gbps leaf-to-spine link, and 200 ns");
    }

    #[test]
    fn no_switch_is_shared_out_where_its_ports_down_do_not_lead_into_the_destinations_partition() {
        // Hosts apart from switches: the switches are one partition.
        let ls = leaf_spine(9, 16, 4, links());
        assert!(Partitioning::of(PartitionKind::Hosts, &ls).shared_out(&ls).shared.is_empty());
        // A fat-tree cut by racks: a core's port down leads to an aggregation switch of one rack's partition,
        // and the pod's other racks are reached through it too.
        let t = fat_tree(4, links());
        assert!(Partitioning::racks(&t).shared_out(&t).shared.is_empty());
        // Every node alone: an aggregation switch is not its hosts' partition.
        assert!(Partitioning::of(PartitionKind::Nodes, &t).shared_out(&t).shared.is_empty());
        // One partition: nothing to share out among.
        let s = star(8, links());
        assert!(Partitioning::groups(&s).shared_out(&s).shared.is_empty());
    }

    #[test]
    fn a_star_is_one_partition_and_a_dumbbell_two() {
        let s = Partitioning::groups(&star(8, links()));
        assert_eq!(s.parts, 1);
        assert_eq!(s.lookahead, 2_700_000 + 32_000, "no cut: the least crossing of any link");
        let d = Partitioning::groups(&dumbbell(4, links()));
        assert_eq!(d.parts, 2);
        assert_eq!(d.part_of[..8], [0, 0, 0, 0, 1, 1, 1, 1]);
    }
}

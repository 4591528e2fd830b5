//! Topologies: hosts, switches, and the full-duplex links between them, with the routing table of every switch.
//!
//! Nodes `0..hosts` are the hosts (a host's id is its node id) and each host has exactly one port, its NIC.
//! Switches follow. A full-duplex link is two ports, one at each end, each with its own queue and serializer.
//! The host delay of the paper's set-up (2.5 us each time a packet crosses a host's link, in the authors'
//! code) is added to the propagation delay of both directions of every host link.
//!
//! Routing is computed, not written per topology: a breadth-first search from every edge switch (one that hosts
//! attach to) gives each switch its equal-cost next hops towards it (the ports whose far end is one hop closer);
//! the edge switch then delivers to the host's own port. A packet
//! then takes one of them per packet (spraying) or per flow (ECMP, a hash of flow and switch).
//!
//! Where the hosts' numbering says the way (a leaf-spine, a fat-tree, a star: each switch sends a range of
//! hosts down, a fixed number of hosts per port, and every other host up), the table is read once at set-up
//! into a `Descent` per switch and a route is then computed from the destination's number: one small record
//! per switch instead of a table that grows with switches times edge switches. The table stays for any other
//! fabric, and a descent is kept only if it gives every switch exactly the table's routes.

use crate::sim::time::Time;

/// Marks a route table entry that names a group's common neighbour (`NEAR | j`) rather than a list.
const NEAR: u32 = 1 << 31;
/// Marks a route entry that is a list of several ports (or none): `MULTI | at`, the list's length at
/// `route_ports[at]` and its ports after it. An entry without a mark is the one port of its list.
const MULTI: u32 = 1 << 30;
/// The entry of the empty list (`route_ports` opens with a length of 0).
const EMPTY: u32 = MULTI;
/// The largest route table kept with a row per edge switch; above it a group of edge switches shares one.
const ROW_PER_EDGE_BYTES: usize = 1 << 20;

/// Where a port sits, for attributing drops to the first hop, the fabric, or the last hop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum Tier {
    /// A host's NIC: the first hop.
    HostNic,
    /// A switch port between switches.
    Fabric,
    /// A switch port facing a host: the last hop.
    ToHost,
}

impl Tier {
    pub const ALL: [Tier; 3] = [Tier::HostNic, Tier::Fabric, Tier::ToHost];

    pub fn name(self) -> &'static str {
        match self {
            Tier::HostNic => "host-nic",
            Tier::Fabric => "fabric",
            Tier::ToHost => "to-host",
        }
    }
}

/// A switch's routes as the hosts' numbering gives them: hosts `lo..lo + count` go down, `span` hosts to each of
/// the ports `first`, `first + stride`, ... (the port is `first + stride * ((dst - lo) / span)`, the division
/// done as a multiplication by `magic` = ceil(2^32 / span), exact while `count * span < 2^32`); every other host
/// takes the route entry `up` (one port, a list, or none). The stride is 1 as a fabric is built; a partitioned
/// run that gives each of a core's ports down to the partition below it numbers them a partition apart. 32
/// bytes, so no record straddles two cache lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(32))]
struct Descent {
    lo: u32,
    count: u32,
    first: u32,
    up: u32,
    magic: u64,
    stride: u32,
}

impl Descent {
    /// The port down towards host `dst`, if `dst` is below this switch.
    #[inline(always)]
    fn down(&self, dst: u32) -> Option<u32> {
        let below = dst.wrapping_sub(self.lo);
        (below < self.count).then(|| self.first + self.stride * ((below as u64 * self.magic) >> 32) as u32)
    }
}

/// The equal-cost next hops of a switch towards a host: one port, or a list of them (empty where the host
/// cannot be reached). Reads as a slice of ports.
#[derive(Clone, Copy, Debug)]
pub struct Hops<'a> {
    one: u32,
    list: Option<&'a [u32]>,
}

impl Hops<'_> {
    #[inline(always)]
    fn one(port: u32) -> Self {
        Hops { one: port, list: None }
    }
}

impl std::ops::Deref for Hops<'_> {
    type Target = [u32];
    #[inline(always)]
    fn deref(&self) -> &[u32] {
        match self.list {
            Some(list) => list,
            None => std::slice::from_ref(&self.one),
        }
    }
}

#[derive(Clone, Debug)]
pub struct PortSpec {
    pub node: u32,
    pub peer_node: u32,
    pub rate_bps: u64,
    pub delay_ps: Time,
    pub tier: Tier,
    /// What the port connects, e.g. "leaf->spine".
    pub label: &'static str,
}

/// A built network: its ports and routes. Immutable during a run.
pub struct Topology {
    pub hosts: u32,
    pub nodes: u32,
    pub ports: Vec<PortSpec>,
    /// Ports of node n are `node_ports[n]..node_ports[n] + node_port_count[n]` (in node order, but for a
    /// fabric `renumbered` for a partitioned run).
    node_ports: Vec<u32>,
    node_port_count: Vec<u32>,
    /// The switch each host attaches to, and that switch's port facing the host.
    host_switch: Vec<u32>,
    host_port: Vec<u32>,
    /// Index among the edge switches (those hosts attach to) of each node; u32::MAX for others.
    edge_index: Vec<u32>,
    /// The row of the route table each edge switch reads, by node; u32::MAX for others. Edge switches with the
    /// same switch neighbours in the same port order (a leaf-spine's leaves, a fat-tree pod's edge switches)
    /// form a group: every switch routes towards them alike but those neighbours, which go straight down to
    /// each. Where a row per edge switch would outgrow `ROW_PER_EDGE_BYTES` (a k = 32 fat-tree: 2.6 MB; k = 64:
    /// 42 MB), a group shares one row; otherwise each edge switch has its own (no second look-up on the hot path).
    edge_row: Vec<u32>,
    /// Next-hop ports of switch s towards an edge switch whose row is r: the entry `routes[i]` (at i = r times
    /// switches, plus s - hosts); or, in a shared row, for the group's j-th common neighbour (`NEAR | j`), the
    /// entry `near_routes[edge_index[e] * near_width + j]`, its ports down to edge switch e. An entry is the
    /// list's one port itself, or `MULTI | at` for the list at `route_ports[at]` (its length, then its ports),
    /// so a route costs one read of the table and at most one of the lists, which sit together. Each switch's
    /// distinct multi-port lists are stored once (on a k = 64 fat-tree an edge switch has one, its 32 uplinks).
    routes: Vec<u32>,
    near_routes: Vec<u32>,
    near_width: u32,
    route_ports: Vec<u32>,
    /// Each switch's routes computed from the hosts' numbering (by switch index from 0), where every switch
    /// has one that gives exactly its table's routes; empty otherwise (the table is read).
    descents: Vec<Descent>,
}

/// Collects nodes and links, then computes ports and routes.
pub struct TopologyBuilder {
    hosts: u32,
    nodes: u32,
    links: Vec<(u32, u32, u64, Time, &'static str, &'static str)>,
}

impl TopologyBuilder {
    pub fn new(hosts: u32, switches: u32) -> Self {
        TopologyBuilder { hosts, nodes: hosts + switches, links: Vec::new() }
    }

    /// A full-duplex link between `a` and `b`; `label_ab` names the port at `a` that sends towards `b`.
    pub fn link(
        &mut self,
        a: u32,
        b: u32,
        rate_bps: u64,
        delay_ps: Time,
        label_ab: &'static str,
        label_ba: &'static str,
    ) {
        self.links.push((a, b, rate_bps, delay_ps, label_ab, label_ba));
    }

    pub fn build(self) -> Topology {
        let n = self.nodes as usize;
        let is_host = |x: u32| x < self.hosts;
        let mut per_node: Vec<Vec<PortSpec>> = vec![Vec::new(); n];
        for &(a, b, rate_bps, delay_ps, lab, lba) in &self.links {
            let tier = |from: u32, to: u32| {
                if is_host(from) {
                    Tier::HostNic
                } else if is_host(to) {
                    Tier::ToHost
                } else {
                    Tier::Fabric
                }
            };
            per_node[a as usize].push(PortSpec {
                node: a,
                peer_node: b,
                rate_bps,
                delay_ps,
                tier: tier(a, b),
                label: lab,
            });
            per_node[b as usize].push(PortSpec {
                node: b,
                peer_node: a,
                rate_bps,
                delay_ps,
                tier: tier(b, a),
                label: lba,
            });
        }
        let mut node_ports = Vec::with_capacity(n + 1);
        let mut ports = Vec::new();
        for list in per_node {
            node_ports.push(ports.len() as u32);
            ports.extend(list);
        }
        node_ports.push(ports.len() as u32);
        let node_port_count = node_ports.windows(2).map(|w| w[1] - w[0]).collect();
        node_ports.pop();
        let mut topo = Topology {
            hosts: self.hosts,
            nodes: self.nodes,
            ports,
            node_ports,
            node_port_count,
            host_switch: Vec::new(),
            host_port: Vec::new(),
            edge_index: Vec::new(),
            edge_row: Vec::new(),
            routes: Vec::new(),
            near_routes: Vec::new(),
            near_width: 0,
            route_ports: Vec::new(),
            descents: Vec::new(),
        };
        topo.compute_routes(None);
        topo
    }
}

impl Topology {
    pub fn switches(&self) -> u32 {
        self.nodes - self.hosts
    }

    pub fn ports_of(&self, node: u32) -> std::ops::Range<u32> {
        let start = self.node_ports[node as usize];
        start..start + self.node_port_count[node as usize]
    }

    /// The same fabric with its ports numbered anew, node by node in the order of `nodes` (each node's ports
    /// keep their order among themselves, so routes and their choices are the same). Returns it and, for each
    /// new port id, the old one.
    pub fn renumbered(&self, nodes: &[u32]) -> (Topology, Vec<u32>) {
        let order: Vec<u32> = nodes.iter().flat_map(|&n| self.ports_of(n)).collect();
        self.ports_renumbered(&order)
    }

    /// The same fabric with its ports numbered anew in the order of `order` (old ids). A partitioned run numbers
    /// each partition's ports in one block, which may take a switch's ports down to the hosts of another
    /// partition apart from its others: a node's ports then no longer form one range (`ports_of` is for the
    /// fabric as built), but a run of ports a switch routes down keeps its order and one step between its ports
    /// (1 as built; a partition's block apart where each of a core's ports down is run by the partition below
    /// it), or this panics.
    /// Returns it and, for each new port id, the old one.
    pub fn ports_renumbered(&self, order: &[u32]) -> (Topology, Vec<u32>) {
        assert_eq!(order.len(), self.ports.len(), "every port once");
        let old_of = order.to_vec();
        let mut new_of = vec![u32::MAX; self.ports.len()];
        for (new, &old) in order.iter().enumerate() {
            assert_eq!(new_of[old as usize], u32::MAX, "port {old} twice");
            new_of[old as usize] = new as u32;
        }
        let node_ports: Vec<u32> =
            self.node_ports.iter().map(|&p| new_of.get(p as usize).copied().unwrap_or(p)).collect();
        // Each run of ports down keeps its order and one step between its ports (see `Descent`).
        let strides: Vec<u32> = self
            .descents
            .iter()
            .map(|d| {
                if d.count == 0 {
                    return d.stride;
                }
                let run = (d.down(d.lo + d.count - 1).expect("the last host below") - d.first) / d.stride + 1;
                let new = |i: u32| new_of[(d.first + i * d.stride) as usize];
                let stride = if run > 1 { new(1).wrapping_sub(new(0)) } else { 1 };
                assert!(
                    stride != 0 && (0..run).all(|i| new(i) as u64 == new(0) as u64 + i as u64 * stride as u64),
                    "a run of ports down split by the numbering"
                );
                stride
            })
            .collect();
        let topo = Topology {
            hosts: self.hosts,
            nodes: self.nodes,
            ports: old_of.iter().map(|&p| self.ports[p as usize].clone()).collect(),
            node_ports,
            node_port_count: self.node_port_count.clone(),
            host_switch: self.host_switch.clone(),
            host_port: self.host_port.iter().map(|&p| new_of[p as usize]).collect(),
            edge_index: self.edge_index.clone(),
            edge_row: self.edge_row.clone(),
            routes: self.routes.iter().map(|&e| renumber_entry(e, &new_of)).collect(),
            near_routes: self.near_routes.iter().map(|&e| renumber_entry(e, &new_of)).collect(),
            near_width: self.near_width,
            route_ports: renumber_lists(&self.route_ports, &new_of),
            // A run of ports down keeps one step between its ports (checked above).
            descents: self
                .descents
                .iter()
                .zip(strides)
                .map(|(d, stride)| Descent {
                    first: if d.count == 0 { d.first } else { new_of[d.first as usize] },
                    up: renumber_entry(d.up, &new_of),
                    stride,
                    ..*d
                })
                .collect(),
        };
        (topo, old_of)
    }

    /// The NIC port of a host.
    #[inline]
    pub fn nic_port(&self, host: u32) -> u32 {
        self.node_ports[host as usize]
    }

    /// Equal-cost next-hop ports of switch `node` towards host `dst`.
    #[inline(always)]
    pub fn next_hops(&self, node: u32, dst: u32) -> Hops<'_> {
        if let Some(d) = self.descents.get(node.wrapping_sub(self.hosts) as usize) {
            return match d.down(dst) {
                Some(port) => Hops::one(port),
                None => self.entry_hops(d.up),
            };
        }
        let edge = self.host_switch[dst as usize];
        if node == edge {
            return Hops::one(self.host_port[dst as usize]);
        }
        self.entry_hops(self.table_entry(edge, node))
    }

    /// The route table's entry for switch `node` towards edge switch `edge` (`node` is not `edge`).
    #[inline(always)]
    fn table_entry(&self, edge: u32, node: u32) -> u32 {
        let entry = self.routes[self.route_index(edge, node)];
        if entry & NEAR != 0 {
            *self.near_route(edge, entry)
        } else {
            entry
        }
    }

    /// The ports of route entry `entry`.
    #[inline(always)]
    fn entry_hops(&self, entry: u32) -> Hops<'_> {
        if entry & MULTI == 0 {
            Hops::one(entry)
        } else {
            Hops { one: 0, list: Some(stored_list(&self.route_ports, (entry & !MULTI) as usize)) }
        }
    }

    /// The entry of a group's common neighbour (`entry`: `NEAR | j`) down to edge switch `edge`, in a shared
    /// row (a large fat-tree's aggregation hop down).
    #[inline(always)]
    fn near_route(&self, edge: u32, entry: u32) -> &u32 {
        let at = self.edge_index[edge as usize] as usize * self.near_width as usize + (entry & !NEAR) as usize;
        &self.near_routes[at]
    }

    /// Where in `routes` the routes of switch `node` towards edge switch `edge` are.
    #[inline(always)]
    fn route_index(&self, edge: u32, node: u32) -> usize {
        self.edge_row[edge as usize] as usize * self.switches() as usize + (node - self.hosts) as usize
    }

    /// Bytes of what `next_hops` reads: the descents, or where there are none the tables (rows x switches
    /// entries, and with shared rows each edge switch's lists down from its group's neighbours).
    pub fn route_table_bytes(&self) -> usize {
        if !self.descents.is_empty() {
            return std::mem::size_of_val(&self.descents[..]);
        }
        (self.routes.len() + self.near_routes.len()) * std::mem::size_of::<u32>()
    }

    /// Ask for what `next_hops(node, dst)` will read (a hint for the engine's prefetching: on a large fabric
    /// the table can outgrow the caches).
    #[inline(always)]
    pub fn prefetch_route(&self, node: u32, dst: u32) {
        if let Some(d) = self.descents.get(node.wrapping_sub(self.hosts) as usize) {
            crate::sim::prefetch(d);
            return;
        }
        let Some(&edge) = self.host_switch.get(dst as usize) else { return };
        if node == edge || node < self.hosts {
            return;
        }
        if let Some(entry) = self.routes.get(self.route_index(edge, node)) {
            crate::sim::prefetch(entry);
        }
    }

    /// Each switch's routes from the hosts' numbering (`Descent`), read from the table; empty unless every
    /// switch has one that gives, towards every host, exactly the table's ports.
    ///
    /// Each edge switch's hosts must be consecutive. A switch's hosts below are then the edge switches whose
    /// entry differs from its way up; that way up is the entry towards the first or the last edge switch in
    /// the hosts' order (the one that is not below), or none (a core switch, with every host below). The
    /// hosts below must be consecutive, a run of `span` hosts to each port, the ports consecutive.
    fn derive_descents(&self) -> Vec<Descent> {
        // Each edge switch's hosts, in the hosts' order: (first host, end, edge switch).
        let mut blocks: Vec<(u32, u32, u32)> = Vec::new();
        for h in 0..self.hosts {
            let e = self.host_switch[h as usize];
            match blocks.last_mut() {
                Some(b) if b.2 == e => b.1 = h + 1,
                _ => blocks.push((h, h + 1, e)),
            }
        }
        let edges = self.edge_index.iter().filter(|&&i| i != u32::MAX).count();
        if blocks.len() != edges {
            return Vec::new(); // some edge switch's hosts are not consecutive
        }
        let mut descents = Vec::with_capacity(self.switches() as usize);
        let mut entries = Vec::with_capacity(blocks.len());
        for s in self.hosts..self.nodes {
            // Each block's entry from `s`; `OWN` for its own hosts (ports of their own, found per host).
            const OWN: u32 = u32::MAX;
            entries.clear();
            entries.extend(blocks.iter().map(|&(_, _, e)| if e == s { OWN } else { self.table_entry(e, s) }));
            let others = || entries.iter().copied().filter(|&x| x != OWN);
            let candidates = [others().next(), others().next_back(), Some(EMPTY)];
            let found =
                candidates.iter().flatten().find_map(|&up| self.descent_with_way_up(up, &blocks, &entries, OWN));
            match found {
                Some(d) => descents.push(d),
                None => return Vec::new(),
            }
        }
        descents
    }

    /// A switch's descent with way up `up`, if the rest of its routes (`entries`, per block of `blocks`;
    /// `own` marks its own hosts) are one run of hosts down as a descent describes.
    fn descent_with_way_up(&self, up: u32, blocks: &[(u32, u32, u32)], entries: &[u32], own: u32) -> Option<Descent> {
        let below = |i: usize| entries[i] == own || entries[i] != up;
        let Some(start) = (0..blocks.len()).find(|&i| below(i)) else {
            return Some(Descent { lo: 0, count: 0, first: 0, up, magic: 0, stride: 1 });
        };
        let end = (start..blocks.len()).find(|&i| !below(i)).unwrap_or(blocks.len());
        if (end..blocks.len()).any(below) {
            return None; // the hosts below are not one run
        }
        // The port down towards host `h` of block `i`: its own port, or the block's entry if it is one port.
        let port_of = |i: usize, h: u32| -> Option<u32> {
            if entries[i] == own {
                Some(self.host_port[h as usize])
            } else {
                (entries[i] & (MULTI | NEAR) == 0).then_some(entries[i])
            }
        };
        let (lo, hi) = (blocks[start].0, blocks[end - 1].1);
        let first = port_of(start, lo)?;
        // The span: hosts from `lo` that share the first port.
        let mut span = hi - lo;
        'run: for i in start..end {
            for h in blocks[i].0..blocks[i].1 {
                if port_of(i, h)? != first {
                    span = h - lo;
                    break 'run;
                }
                if entries[i] != own {
                    break; // a block of one entry shares one port
                }
            }
        }
        if (hi - lo) as u64 * span as u64 >= 1 << 32 {
            return None;
        }
        let d = Descent { lo, count: hi - lo, first, up, magic: (1u64 << 32).div_ceil(span as u64), stride: 1 };
        // Every host below gets its port: each of its own hosts, and the first and last host of each other block
        // (the port grows with the host, so a block whose ends agree agrees throughout).
        for i in start..end {
            let (a, b) = (blocks[i].0, blocks[i].1 - 1);
            let ok = if entries[i] == own {
                (a..=b).all(|h| d.down(h) == port_of(i, h))
            } else {
                d.down(a) == port_of(i, a) && d.down(b) == port_of(i, b)
            };
            if !ok {
                return None;
            }
        }
        Some(d)
    }

    /// Routes towards each switch that hosts attach to (an edge switch): a host is reached through its edge
    /// switch, so routes per edge switch (not per host) hold every route.
    ///
    /// Edge switches with the same neighbours, in the same port order (a leaf-spine's leaves, a fat-tree
    /// pod's edge switches), share one breadth-first search and one row of the table: seen from any of them,
    /// every other switch is as far as from their common neighbours plus one, so only the neighbours' own
    /// route (the ports back down to that edge switch) differs, and those are kept per edge switch. A k = 64
    /// fat-tree needs 64 searches and 64 rows instead of 2,048.
    fn compute_routes(&mut self, share_rows: Option<bool>) {
        let n = self.nodes as usize;
        let hosts = self.hosts as usize;
        self.host_switch = (0..self.hosts).map(|h| self.ports[self.nic_port(h) as usize].peer_node).collect();
        self.host_port = (0..self.hosts)
            .map(|h| {
                let sw = self.host_switch[h as usize];
                self.ports_of(sw).find(|&p| self.ports[p as usize].peer_node == h).expect("a port facing the host")
            })
            .collect();
        self.edge_index = vec![u32::MAX; n];
        let mut edges = Vec::new();
        for &sw in &self.host_switch {
            if self.edge_index[sw as usize] == u32::MAX {
                self.edge_index[sw as usize] = edges.len() as u32;
                edges.push(sw);
            }
        }
        let switches = n - hosts;
        // Edge switches grouped by their switch neighbours in port order.
        let neighbours = |e: u32| -> Vec<u32> {
            self.ports_of(e).map(|p| self.ports[p as usize].peer_node).filter(|&v| v >= self.hosts).collect()
        };
        let mut group_of: std::collections::HashMap<Vec<u32>, usize> = std::collections::HashMap::new();
        let mut groups: Vec<(Vec<u32>, Vec<u32>)> = Vec::new(); // (distinct neighbours, edge switches)
                                                                // Rows shared by groups where a row per edge switch would outgrow the caches (or as a test asks).
        let shared = share_rows.unwrap_or(edges.len() * switches * std::mem::size_of::<u32>() > ROW_PER_EDGE_BYTES);
        let mut edge_group = vec![u32::MAX; n];
        for &e in &edges {
            let key = neighbours(e);
            let g = *group_of.entry(key.clone()).or_insert_with(|| {
                let mut near = Vec::new();
                for v in key {
                    if !near.contains(&v) {
                        near.push(v);
                    }
                }
                groups.push((near, Vec::new()));
                groups.len() - 1
            });
            groups[g].1.push(e);
            edge_group[e as usize] = g as u32;
        }
        self.edge_row = if shared { edge_group } else { self.edge_index.clone() };
        let near_width = if shared { groups.iter().map(|(near, _)| near.len()).max().unwrap_or(0) } else { 0 };
        assert!(
            self.ports.len() < MULTI as usize,
            "a fabric of {} ports: routes name at most {} (2^30 - 1)",
            self.ports.len(),
            MULTI - 1
        );
        let mut lists = RouteLists::new(switches);
        self.routes = vec![0; if shared { groups.len() } else { edges.len() } * switches];
        self.near_routes = vec![0; edges.len() * near_width];
        self.near_width = near_width as u32;
        let mut dist = vec![u32::MAX; n];
        let mut frontier = Vec::new();
        let mut next = Vec::new();
        let mut list = Vec::new();
        for (near, members) in &groups {
            // Distances from the group's common neighbours (1), as from any member (0) but for the members.
            dist.iter_mut().for_each(|x| *x = u32::MAX);
            frontier.clear();
            for &v in near {
                dist[v as usize] = 1;
                frontier.push(v);
            }
            let mut level = 1;
            while !frontier.is_empty() {
                next.clear();
                level += 1;
                for &u in &frontier {
                    for p in self.ports_of(u) {
                        let v = self.ports[p as usize].peer_node;
                        // Hosts do not forward: the search stays among switches.
                        if v >= self.hosts && dist[v as usize] == u32::MAX {
                            dist[v as usize] = level;
                            next.push(v);
                        }
                    }
                }
                std::mem::swap(&mut frontier, &mut next);
            }
            // Switches two or more hops from the members route alike towards each of them (a member's own
            // entry is read only by the other members: `next_hops` delivers to its hosts' ports first).
            let row = self.edge_row[members[0] as usize] as usize * switches;
            for s in self.hosts..self.nodes {
                let here = dist[s as usize];
                list.clear();
                let alone = members.len() == 1 && members[0] == s;
                if here != u32::MAX && here >= 2 && !alone {
                    list.extend(self.ports_of(s).filter(|&p| {
                        let v = self.ports[p as usize].peer_node;
                        v >= self.hosts && dist[v as usize].wrapping_add(1) == here
                    }));
                }
                self.routes[row + (s - self.hosts) as usize] = lists.intern(s - self.hosts, &list);
            }
            if !shared {
                for &e in &members[1..] {
                    let own = self.edge_row[e as usize] as usize * switches;
                    self.routes.copy_within(row..row + switches, own);
                }
            }
            // The neighbours go straight down to each member, by every port facing it.
            for (j, &s) in near.iter().enumerate() {
                if shared {
                    self.routes[row + (s - self.hosts) as usize] = NEAR | j as u32;
                }
                for &e in members {
                    list.clear();
                    list.extend(self.ports_of(s).filter(|&p| self.ports[p as usize].peer_node == e));
                    let id = lists.intern(s - self.hosts, &list);
                    if shared {
                        self.near_routes[self.edge_index[e as usize] as usize * near_width + j] = id;
                    } else {
                        self.routes[self.edge_row[e as usize] as usize * switches + (s - self.hosts) as usize] = id;
                    }
                }
            }
        }
        self.route_ports = lists.ports;
        self.descents = Vec::new();
        self.descents = self.derive_descents();
    }

    /// The ports a packet from `src` to `dst` crosses, taking the first equal-cost choice at each switch.
    pub fn path_ports(&self, src: u32, dst: u32) -> Vec<u32> {
        self.path_ports_with(src, dst, |_, choices| choices[0])
    }

    /// The ports a packet from `src` to `dst` crosses, `choose(switch, equal-cost ports)` picking at each
    /// switch with more than one way on.
    pub fn path_ports_with(&self, src: u32, dst: u32, mut choose: impl FnMut(u32, &[u32]) -> u32) -> Vec<u32> {
        let mut path = vec![self.nic_port(src)];
        let mut node = self.ports[self.nic_port(src) as usize].peer_node;
        while node != dst {
            let choices = self.next_hops(node, dst);
            let p = if choices.len() == 1 { choices[0] } else { choose(node, &choices) };
            path.push(p);
            node = self.ports[p as usize].peer_node;
        }
        path
    }

    /// Whether any switch has more than one equal-cost way towards some host (packets of one flow can then
    /// take different paths).
    pub fn has_equal_cost_choices(&self) -> bool {
        let entries = self.routes.iter().filter(|&&e| e & NEAR == 0).chain(&self.near_routes);
        entries.into_iter().any(|&e| e & MULTI != 0 && self.route_ports[(e & !MULTI) as usize] > 1)
    }

    /// The switch host `host` attaches to.
    #[inline]
    pub fn edge_switch(&self, host: u32) -> u32 {
        self.host_switch[host as usize]
    }

    /// Whether every host can reach every other host.
    pub fn is_connected(&self) -> bool {
        (self.hosts..self.nodes).all(|s| (0..self.hosts).all(|d| !self.next_hops(s, d).is_empty()))
    }
}

/// The distinct next-hop lists of a topology while its routes are built, as route entries: a one-port list is
/// the port itself, others `MULTI | at` with the list (its length, then its ports) at `ports[at]`; the empty
/// list is the length 0 that `ports` opens with, and each switch's multi-port lists are stored once.
struct RouteLists {
    ports: Vec<u32>,
    /// Per switch (index from 0), its multi-port lists so far, as entries.
    known: Vec<Vec<u32>>,
}

impl RouteLists {
    fn new(switches: usize) -> Self {
        RouteLists { ports: vec![0], known: vec![Vec::new(); switches] }
    }

    /// The entry of `list` (ports of switch index `switch`), stored if new.
    fn intern(&mut self, switch: u32, list: &[u32]) -> u32 {
        match list.len() {
            0 => EMPTY,
            1 => list[0],
            len => {
                let known = &mut self.known[switch as usize];
                let ports = &self.ports;
                let found = known.iter().find(|&&e| stored_list(ports, (e & !MULTI) as usize) == list);
                match found {
                    Some(&e) => e,
                    None => {
                        let e = MULTI | self.ports.len() as u32;
                        assert!(self.ports.len() + 1 + len < MULTI as usize, "route lists past 2^30 entries");
                        self.ports.push(len as u32);
                        self.ports.extend_from_slice(list);
                        known.push(e);
                        e
                    }
                }
            }
        }
    }
}

/// A route entry with its port numbered anew (`new_of`), if it is one port (lists and `NEAR` marks keep theirs).
fn renumber_entry(entry: u32, new_of: &[u32]) -> u32 {
    if entry & (NEAR | MULTI) == 0 {
        new_of[entry as usize]
    } else {
        entry
    }
}

/// The lists of `route_ports` with their ports numbered anew (`new_of`), their lengths as they were.
fn renumber_lists(lists: &[u32], new_of: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(lists.len());
    let mut at = 0;
    while at < lists.len() {
        let list = stored_list(lists, at);
        out.push(list.len() as u32);
        out.extend(list.iter().map(|&p| new_of[p as usize]));
        at += 1 + list.len();
    }
    out
}

/// The list stored at `lists[at]`: its length there, its ports after it.
#[inline(always)]
fn stored_list(lists: &[u32], at: usize) -> &[u32] {
    let len = lists[at] as usize;
    &lists[at + 1..at + 1 + len]
}

/// ECMP's choice for `flow` at `node` among `choices`: the same flow always takes the same port there.
#[inline]
pub fn ecmp_choice(flow: u32, node: u32, choices: &[u32]) -> u32 {
    choices[(flow_hash(flow, node) % choices.len() as u64) as usize]
}

/// ECMP's hash of a flow at a switch.
#[inline]
fn flow_hash(flow: u32, node: u32) -> u64 {
    let mut z = ((flow as u64) << 32 | node as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Rates and delays shared by the topology constructors.
#[derive(Clone, Copy, Debug)]
pub struct LinkParams {
    pub host_rate_bps: u64,
    pub core_rate_bps: u64,
    pub link_delay_ps: Time,
    pub host_delay_ps: Time,
}

impl LinkParams {
    /// The pFabric paper's links (section 5.1): hosts at 10 Gbps, the fabric at 40 Gbps, 0.2 us per link and
    /// 2.5 us of host delay on each host link. (Scenarios spell these out in `config`; tests build with it.)
    pub const PAPER: LinkParams = LinkParams {
        host_rate_bps: 10_000_000_000,
        core_rate_bps: 40_000_000_000,
        link_delay_ps: 200_000,
        host_delay_ps: 2_500_000,
    };

    fn host_link_delay(&self) -> Time {
        self.link_delay_ps + self.host_delay_ps
    }
}

/// The paper's fabric: `leaves` leaf switches of `hosts_per_leaf` hosts each, every leaf linked to every spine.
pub fn leaf_spine(leaves: u32, hosts_per_leaf: u32, spines: u32, lp: LinkParams) -> Topology {
    let hosts = leaves * hosts_per_leaf;
    let mut b = TopologyBuilder::new(hosts, leaves + spines);
    let leaf = |l: u32| hosts + l;
    let spine = |s: u32| hosts + leaves + s;
    for h in 0..hosts {
        b.link(h, leaf(h / hosts_per_leaf), lp.host_rate_bps, lp.host_link_delay(), "host->leaf", "leaf->host");
    }
    for l in 0..leaves {
        for s in 0..spines {
            b.link(leaf(l), spine(s), lp.core_rate_bps, lp.link_delay_ps, "leaf->spine", "spine->leaf");
        }
    }
    b.build()
}

/// `hosts` hosts on one switch.
pub fn star(hosts: u32, lp: LinkParams) -> Topology {
    let mut b = TopologyBuilder::new(hosts, 1);
    for h in 0..hosts {
        b.link(h, hosts, lp.host_rate_bps, lp.host_link_delay(), "host->switch", "switch->host");
    }
    b.build()
}

/// A k-ary fat-tree (Al-Fares et al.): k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 cores,
/// k^3/4 hosts. Host links run at the host rate, the rest at the core rate.
pub fn fat_tree(k: u32, lp: LinkParams) -> Topology {
    let half = k / 2;
    let hosts = k * k * k / 4;
    let edges = k * half;
    let aggs = k * half;
    let cores = half * half;
    let mut b = TopologyBuilder::new(hosts, edges + aggs + cores);
    let edge = |pod: u32, i: u32| hosts + pod * half + i;
    let agg = |pod: u32, i: u32| hosts + edges + pod * half + i;
    let core = |i: u32| hosts + edges + aggs + i;
    for h in 0..hosts {
        let e = h / half; // global edge index
        b.link(h, hosts + e, lp.host_rate_bps, lp.host_link_delay(), "host->edge", "edge->host");
    }
    for pod in 0..k {
        for e in 0..half {
            for a in 0..half {
                b.link(edge(pod, e), agg(pod, a), lp.core_rate_bps, lp.link_delay_ps, "edge->agg", "agg->edge");
            }
        }
        for a in 0..half {
            for c in 0..half {
                b.link(agg(pod, a), core(a * half + c), lp.core_rate_bps, lp.link_delay_ps, "agg->core", "core->agg");
            }
        }
    }
    b.build()
}

/// Two switches joined by one bottleneck link (at the core rate), `hosts_per_side` hosts on each.
/// Hosts `0..n` are on the left, `n..2n` on the right.
pub fn dumbbell(hosts_per_side: u32, lp: LinkParams) -> Topology {
    let hosts = 2 * hosts_per_side;
    let mut b = TopologyBuilder::new(hosts, 2);
    let (left, right) = (hosts, hosts + 1);
    for h in 0..hosts {
        let sw = if h < hosts_per_side { left } else { right };
        b.link(h, sw, lp.host_rate_bps, lp.host_link_delay(), "host->switch", "switch->host");
    }
    b.link(left, right, lp.core_rate_bps, lp.link_delay_ps, "left->right", "right->left");
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::{bps_from_gbps, ps_from_us};

    fn paper_links() -> LinkParams {
        LinkParams {
            host_rate_bps: bps_from_gbps(10.0),
            core_rate_bps: bps_from_gbps(40.0),
            link_delay_ps: ps_from_us(0.2),
            host_delay_ps: ps_from_us(2.5),
        }
    }

    #[test]
    fn leaf_spine_has_the_papers_shape() {
        let t = leaf_spine(9, 16, 4, paper_links());
        assert_eq!(t.hosts, 144);
        assert_eq!(t.switches(), 13);
        assert_eq!(t.ports.len(), 2 * (144 + 36));
        assert!(t.is_connected());
        // Across leaves: 4 spines to choose from at the source leaf, one way down at the spine.
        let src_leaf = t.ports[t.nic_port(0) as usize].peer_node;
        assert_eq!(t.next_hops(src_leaf, 100).len(), 4);
        assert_eq!(t.path_ports(0, 100).len(), 4);
        // Same leaf: straight down.
        assert_eq!(t.next_hops(src_leaf, 5).len(), 1);
        assert_eq!(t.path_ports(0, 5).len(), 2);
    }

    #[test]
    fn fat_tree_k4() {
        let t = fat_tree(4, paper_links());
        assert_eq!(t.hosts, 16);
        assert_eq!(t.switches(), 20);
        assert!(t.is_connected());
        assert_eq!(t.path_ports(0, 15).len(), 6);
        assert_eq!(t.path_ports(0, 2).len(), 4);
        assert_eq!(t.path_ports(0, 1).len(), 2);
        let edge = t.ports[t.nic_port(0) as usize].peer_node;
        assert_eq!(t.next_hops(edge, 15).len(), 2);
    }

    /// Every switch's next hops towards host `d` of `t` are exactly its ports one hop closer to the host's edge
    /// switch (a breadth-first search, done here the plain way), whatever sharing the table does.
    fn assert_routes_are_shortest(t: &Topology, what: &str) {
        for d in 0..t.hosts {
            let edge = t.ports[t.nic_port(d) as usize].peer_node;
            let mut dist = vec![u32::MAX; t.nodes as usize];
            dist[edge as usize] = 0;
            let mut queue = std::collections::VecDeque::from([edge]);
            while let Some(u) = queue.pop_front() {
                for p in t.ports_of(u) {
                    let v = t.ports[p as usize].peer_node;
                    if v >= t.hosts && dist[v as usize] == u32::MAX {
                        dist[v as usize] = dist[u as usize] + 1;
                        queue.push_back(v);
                    }
                }
            }
            for s in t.hosts..t.nodes {
                let expected: Vec<u32> = if s == edge {
                    t.ports_of(s).filter(|&p| t.ports[p as usize].peer_node == d).collect()
                } else {
                    t.ports_of(s)
                        .filter(|&p| {
                            let v = t.ports[p as usize].peer_node;
                            v >= t.hosts && dist[v as usize] != u32::MAX && dist[v as usize] + 1 == dist[s as usize]
                        })
                        .collect()
                };
                assert_eq!(&*t.next_hops(s, d), &expected[..], "{what}: switch {s} towards host {d}");
            }
        }
    }

    /// A partitioned run whose hosts own their downlinks numbers those ports with the hosts', apart from their
    /// switch's others: the routes are the same, by the new ids.
    #[test]
    fn ports_numbered_apart_from_their_node_route_alike() {
        for t in
            [leaf_spine(3, 4, 2, paper_links()), fat_tree(4, paper_links()), shared_rows(fat_tree(4, paper_links()))]
        {
            let down = |p: u32| t.ports[p as usize].node >= t.hosts && t.ports[p as usize].peer_node < t.hosts;
            let mut order: Vec<u32> = (0..t.ports.len() as u32).collect();
            order.sort_by_key(|&p| down(p));
            let (numbered, old_of) = t.ports_renumbered(&order);
            for s in t.hosts..t.nodes {
                for d in 0..t.hosts {
                    let mapped: Vec<u32> = numbered.next_hops(s, d).iter().map(|&p| old_of[p as usize]).collect();
                    assert_eq!(&mapped[..], &*t.next_hops(s, d), "switch {s} towards host {d}");
                }
            }
            assert!((0..t.hosts).all(|h| old_of[numbered.nic_port(h) as usize] == t.nic_port(h)));
        }
    }

    /// A partitioned run that shares a fat-tree's cores out among its pods numbers each core's ports down in the
    /// blocks of the pods below, one pod's block apart: the routes are the same, by the new ids.
    #[test]
    fn a_cores_ports_down_numbered_a_pods_block_apart_route_alike() {
        use crate::net::partition::Partitioning;
        for t in [fat_tree(4, paper_links()), fat_tree(8, paper_links()), shared_rows(fat_tree(4, paper_links()))] {
            let cut = Partitioning::groups(&t).shared_out(&t);
            let mut order: Vec<u32> = (0..t.ports.len() as u32).collect();
            order.sort_by_key(|&p| {
                let spec = &t.ports[p as usize];
                (cut.owner(&t, spec), spec.node, p)
            });
            let (numbered, old_of) = t.ports_renumbered(&order);
            for s in t.hosts..t.nodes {
                for d in 0..t.hosts {
                    let mapped: Vec<u32> = numbered.next_hops(s, d).iter().map(|&p| old_of[p as usize]).collect();
                    assert_eq!(&mapped[..], &*t.next_hops(s, d), "switch {s} towards host {d}");
                }
            }
        }
    }

    /// A numbering that breaks a switch's run of ports down (which routes compute from the hosts' numbering)
    /// is refused, not followed to wrong routes.
    #[test]
    #[should_panic(expected = "a run of ports down split by the numbering")]
    fn a_numbering_that_splits_a_run_of_ports_down_is_refused() {
        let t = leaf_spine(2, 4, 2, paper_links());
        let mut order: Vec<u32> = (0..t.ports.len() as u32).collect();
        let first_down = t.ports_of(t.hosts).find(|&p| t.ports[p as usize].peer_node < t.hosts).unwrap();
        order.swap(first_down as usize, first_down as usize + 1);
        let _ = t.ports_renumbered(&order);
    }

    #[test]
    fn next_hops_are_every_port_one_hop_closer() {
        for (i, t) in [
            leaf_spine(3, 2, 3, paper_links()),
            leaf_spine(1, 4, 2, paper_links()),
            fat_tree(4, paper_links()),
            fat_tree(6, paper_links()),
            fat_tree(8, paper_links()),
            star(5, paper_links()),
            dumbbell(3, paper_links()),
            ring_with_a_double_link(),
            // Ports numbered anew (as a partitioned run numbers them): the same routes, by the new ids.
            fat_tree(4, paper_links()).renumbered(&(0..36).rev().collect::<Vec<u32>>()).0,
            // Rows shared by each group of edge switches, as on a large fabric.
            shared_rows(fat_tree(4, paper_links())),
            shared_rows(fat_tree(6, paper_links())),
            shared_rows(leaf_spine(3, 2, 3, paper_links())),
            shared_rows(ring_with_a_double_link()),
            shared_rows(star(5, paper_links())),
            shared_rows(fat_tree(4, paper_links())).renumbered(&(0..36).rev().collect::<Vec<u32>>()).0,
        ]
        .into_iter()
        .enumerate()
        {
            assert_routes_are_shortest(&t, &format!("fabric {i}"));
            // The table alone, where the fabric's routes are computed from the hosts' numbering.
            assert_routes_are_shortest(&table_only(t), &format!("fabric {i}, its table"));
        }
    }

    /// The same fabric routed by its table alone.
    fn table_only(mut t: Topology) -> Topology {
        t.descents.clear();
        t
    }

    /// Bytes of the route table (without the descents that replace it where they can).
    fn table_bytes(t: &Topology) -> usize {
        (t.routes.len() + t.near_routes.len()) * std::mem::size_of::<u32>()
    }

    /// Fabrics whose hosts are numbered down their tree get their routes from that numbering, one record
    /// per switch; a fabric with a ring does not.
    #[test]
    fn tree_fabrics_route_by_the_hosts_numbering() {
        for (what, t) in [
            ("leaf-spine", leaf_spine(9, 16, 4, paper_links())),
            ("one leaf", leaf_spine(1, 4, 2, paper_links())),
            ("fat-tree 4", fat_tree(4, paper_links())),
            ("fat-tree 8", fat_tree(8, paper_links())),
            ("fat-tree 16, shared rows", shared_rows(fat_tree(16, paper_links()))),
            ("star", star(5, paper_links())),
            ("dumbbell", dumbbell(3, paper_links())),
            ("renumbered", fat_tree(4, paper_links()).renumbered(&(0..36).rev().collect::<Vec<u32>>()).0),
        ] {
            assert_eq!(t.descents.len(), t.switches() as usize, "{what}");
            assert_eq!(t.route_table_bytes(), t.switches() as usize * 32, "{what}");
        }
        assert!(ring_with_a_double_link().descents.is_empty());
        // A k = 32 fat-tree: 1,280 switches of 32 bytes, against a table of 196,608 bytes with shared rows.
        let t = fat_tree(32, paper_links());
        assert_eq!(t.route_table_bytes(), 1280 * 32);
        // Every switch towards every host: the table's ports.
        let table = table_only(fat_tree(32, paper_links()));
        for s in (t.hosts..t.nodes).step_by(7) {
            for d in 0..t.hosts {
                assert_eq!(&*t.next_hops(s, d), &*table.next_hops(s, d), "switch {s} towards {d}");
            }
        }
    }

    /// Random fabrics, routed with a row per edge switch and with shared rows: both give every shortest way.
    /// Edge switches ("homes") hang off a random tree of other switches with extra and parallel links; most
    /// homes take the same uplinks in the same order (a group sharing a row), some one link more (a group of
    /// their own, sometimes a link to another home).
    #[test]
    fn random_fabrics_route_every_shortest_way_with_either_rows() {
        let lp = paper_links();
        let mut rng = crate::sim::rng::Rng::new(7);
        let mut shared_groups = 0;
        let mut descents = 0;
        for case in 0..300 {
            let switches = 3 + rng.below(10) as u32;
            let homes = 1 + rng.below(switches as u64 - 1) as u32;
            let hosts = 1 + rng.below(3 * homes as u64) as u32;
            let mut b = TopologyBuilder::new(hosts, switches);
            let sw = |i: u32| hosts + i;
            let pick = |rng: &mut crate::sim::rng::Rng, lo: u32, hi: u32| lo + rng.below((hi - lo) as u64) as u32;
            for h in 0..hosts {
                b.link(h, sw(pick(&mut rng, 0, homes)), lp.host_rate_bps, lp.host_link_delay(), "h", "h");
            }
            for i in homes + 1..switches {
                b.link(sw(i), sw(pick(&mut rng, homes, i)), lp.core_rate_bps, lp.link_delay_ps, "c", "c");
            }
            for _ in 0..rng.below(switches as u64) {
                let (x, y) = (pick(&mut rng, homes, switches), pick(&mut rng, homes, switches));
                if x != y {
                    b.link(sw(x), sw(y), lp.core_rate_bps, lp.link_delay_ps, "c", "c");
                }
            }
            let uplinks: Vec<u32> = (0..1 + rng.below(3)).map(|_| pick(&mut rng, homes, switches)).collect();
            for e in 0..homes {
                for &u in &uplinks {
                    b.link(sw(e), sw(u), lp.core_rate_bps, lp.link_delay_ps, "up", "down");
                }
                if rng.below(3) == 0 {
                    let other = pick(&mut rng, 0, switches);
                    if other != e {
                        b.link(sw(e), sw(other), lp.core_rate_bps, lp.link_delay_ps, "x", "x");
                    }
                }
            }
            let t = b.build();
            assert_routes_are_shortest(&t, &format!("case {case}, a row per edge switch"));
            descents += u32::from(!t.descents.is_empty());
            let t = shared_rows(t);
            let edges = t.edge_index.iter().filter(|&&i| i != u32::MAX).count();
            shared_groups += u32::from(t.routes.len() < edges * t.switches() as usize);
            assert_routes_are_shortest(&t, &format!("case {case}, shared rows"));
            assert_routes_are_shortest(&table_only(t), &format!("case {case}, shared rows, the table alone"));
        }
        assert!(descents > 50, "{descents} of 300 random fabrics route by their hosts' numbering");
        // The cases exercise rows shared by several edge switches, not only groups of one.
        assert!(shared_groups > 50, "{shared_groups}");
    }

    /// Edge switches next to each other, a switch with no hosts, and two parallel links: groups of one, a
    /// neighbour that is itself an edge switch, and a list of two ports down.
    fn ring_with_a_double_link() -> Topology {
        let lp = paper_links();
        let mut b = TopologyBuilder::new(6, 4);
        for h in 0..6 {
            b.link(h, 6 + h / 2, lp.host_rate_bps, lp.host_link_delay(), "host->switch", "switch->host");
        }
        for (a, z) in [(6, 7), (7, 8), (8, 9), (9, 6), (6, 7)] {
            b.link(a, z, lp.core_rate_bps, lp.link_delay_ps, "switch->switch", "switch->switch");
        }
        b.build()
    }

    /// The same fabric with the route rows its groups of edge switches share (what a fabric whose table would
    /// outgrow `ROW_PER_EDGE_BYTES` gets).
    fn shared_rows(mut t: Topology) -> Topology {
        t.compute_routes(Some(true));
        t
    }

    /// Small tables keep a row per edge switch; large ones share a row per group (a fat-tree's pod), and their
    /// size grows with the pods, not the edge switches.
    #[test]
    fn route_table_rows_per_edge_switch_or_per_group() {
        let (pods, switches, edges, aggs_per_pod) = (8, 80, 32, 4);
        assert_eq!(table_bytes(&fat_tree(8, paper_links())), edges * switches * 4);
        assert_eq!(table_bytes(&shared_rows(fat_tree(8, paper_links()))), (pods * switches + edges * aggs_per_pod) * 4);
        let (pods, switches, edges, aggs_per_pod) = (32, 1280, 512, 16);
        let t = fat_tree(32, paper_links());
        assert_eq!(table_bytes(&t), (pods * switches + edges * aggs_per_pod) * 4);
        assert!(edges * switches * 4 > ROW_PER_EDGE_BYTES);
    }

    #[test]
    fn equal_cost_choices_only_where_a_path_has_them() {
        assert!(leaf_spine(3, 2, 3, paper_links()).has_equal_cost_choices());
        assert!(fat_tree(4, paper_links()).has_equal_cost_choices());
        // One leaf: its uplinks lead nowhere a host needs to go.
        assert!(!leaf_spine(1, 4, 2, paper_links()).has_equal_cost_choices());
        assert!(!star(5, paper_links()).has_equal_cost_choices());
        assert!(!dumbbell(3, paper_links()).has_equal_cost_choices());
    }

    #[test]
    fn star_and_dumbbell() {
        let s = star(5, paper_links());
        assert!(s.is_connected());
        assert_eq!(s.path_ports(0, 4).len(), 2);
        let d = dumbbell(3, paper_links());
        assert!(d.is_connected());
        assert_eq!(d.path_ports(0, 5).len(), 3);
        assert_eq!(d.path_ports(0, 1).len(), 2);
    }
}

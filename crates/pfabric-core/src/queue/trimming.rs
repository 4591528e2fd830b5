//! NDP's switch port (Handley et al., SIGCOMM 2017, section 3.1): a short data queue, and a queue of headers
//! beside it. A data packet that finds the data queue full is not dropped: its payload is cut, and the header
//! that is left (a `Trimmed` packet, naming the flow and the packet) joins the header queue with the control
//! packets (ACKs, NACKs, pulls). So a receiver learns of every packet sent to it and can ask for it again at
//! once, and a full queue costs the fabric a header's time, not a timeout.
//!
//! The two queues are served by weighted round robin: while both hold packets, `header_ratio` headers go for
//! each data packet (the authors' simulator serves 10:1, htsim `CompositeQueue` @0e0ed7a, so that a flood of
//! headers cannot starve data); 0 serves headers in strict priority. A header that does not fit in the header
//! queue's bytes is dropped (htsim gives that queue the port's size, 8 of its 9,000-byte packets: 72,000 bytes
//! by default here, 1,800 headers of 40 bytes; htsim may instead bounce a data packet's header back to its
//! sender, which is not modelled: the sender's timeout recovers it). The data queue
//! counts packets (8 in the authors' incast runs, `main_ndp_incast_shortflows.cpp`). An arrival is trimmed,
//! never a packet already queued (htsim's random choice of the tail is disabled in that code).

use std::collections::VecDeque;

use crate::net::packet::{PacketId, PacketKind, PacketPool};

pub struct Trimming {
    data: VecDeque<(PacketId, u32)>,
    headers: VecDeque<(PacketId, u32)>,
    data_bytes: u64,
    header_bytes: u64,
    data_limit_pkts: usize,
    header_limit_bytes: u64,
    header_ratio: u32,
    /// Position in the round robin's cycle of `header_ratio + 1` turns.
    turn: u32,
    /// The packet the last enqueue trimmed and the bytes it lost, until the port takes note.
    trimmed: Option<(PacketId, u32)>,
}

impl Trimming {
    /// A port whose data queue holds `data_limit_pkts` packets and header queue `header_limit_bytes`.
    pub fn new(data_limit_pkts: usize, header_limit_bytes: u64, header_ratio: u32) -> Self {
        Trimming {
            data: VecDeque::new(),
            headers: VecDeque::new(),
            data_bytes: 0,
            header_bytes: 0,
            data_limit_pkts,
            header_limit_bytes,
            header_ratio,
            turn: 0,
            trimmed: None,
        }
    }

    /// Admit `id`, trimming a data packet that does not fit; returns the packet dropped, if any (a header the
    /// header queue has no room for: the arrival, perhaps just trimmed).
    pub fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool) -> Option<PacketId> {
        let p = pool.get_mut(id);
        if p.kind == PacketKind::Data {
            if self.data.len() < self.data_limit_pkts {
                self.data_bytes += p.wire as u64;
                self.data.push_back((id, p.wire));
                return None;
            }
            let cut = p.payload;
            p.kind = PacketKind::Trimmed;
            p.wire -= cut;
            p.payload = 0;
            self.trimmed = Some((id, cut));
        }
        let wire = p.wire;
        if self.header_bytes + wire as u64 > self.header_limit_bytes {
            return Some(id);
        }
        self.header_bytes += wire as u64;
        self.headers.push_back((id, wire));
        None
    }

    /// The packet trimmed by the last enqueue and the payload bytes it lost, once.
    #[inline]
    pub fn take_trimmed(&mut self) -> Option<(PacketId, u32)> {
        self.trimmed.take()
    }

    /// The next packet and its wire size: headers and data in turn, `header_ratio` to one, while both wait.
    pub fn dequeue(&mut self) -> Option<(PacketId, u32)> {
        let from_headers = match (self.headers.is_empty(), self.data.is_empty()) {
            (true, true) => return None,
            (false, true) => true,
            (true, false) => false,
            (false, false) => {
                self.turn = (self.turn + 1) % (self.header_ratio + 1);
                self.header_ratio == 0 || self.turn != 0
            }
        };
        if from_headers {
            let (id, wire) = self.headers.pop_front()?;
            self.header_bytes -= wire as u64;
            Some((id, wire))
        } else {
            let (id, wire) = self.data.pop_front()?;
            self.data_bytes -= wire as u64;
            Some((id, wire))
        }
    }

    pub fn bytes(&self) -> u64 {
        self.data_bytes + self.header_bytes
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty() && self.headers.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testing::data_packet;

    fn header(flow: u32) -> crate::net::packet::Packet {
        let mut p = data_packet(flow, 0, 0);
        (p.kind, p.payload, p.wire) = (PacketKind::Ack, 0, 40);
        p
    }

    #[test]
    fn a_data_packet_that_finds_the_data_queue_full_loses_its_payload_and_jumps_ahead() {
        let mut pool = PacketPool::new();
        let mut q = Trimming::new(2, 10_000, 0);
        let ids: Vec<_> = (0..3).map(|s| pool.alloc(data_packet(1, s, 0))).collect();
        for &id in &ids {
            assert_eq!(q.enqueue(id, &mut pool), None);
        }
        assert_eq!(q.take_trimmed(), Some((ids[2], 1460)));
        assert_eq!(q.take_trimmed(), None);
        let third = pool.get(ids[2]);
        assert_eq!((third.kind, third.payload, third.wire, third.seq), (PacketKind::Trimmed, 0, 40, 2));
        assert_eq!(q.bytes(), 2 * 1500 + 40);
        let order: Vec<_> = std::iter::from_fn(|| q.dequeue()).map(|(id, _)| id).collect();
        assert_eq!(order, [ids[2], ids[0], ids[1]], "strict priority: the header first");
    }

    #[test]
    fn headers_and_data_share_the_link_by_the_ratio_while_both_wait() {
        let mut pool = PacketPool::new();
        let mut q = Trimming::new(100, 100_000, 2);
        let data: Vec<_> = (0..3).map(|s| pool.alloc(data_packet(1, s, 0))).collect();
        let heads: Vec<_> = (0..6).map(|f| pool.alloc(header(f))).collect();
        for &id in data.iter().chain(&heads) {
            q.enqueue(id, &mut pool);
        }
        let order: Vec<_> = std::iter::from_fn(|| q.dequeue()).map(|(id, _)| id).collect();
        let expect = [heads[0], heads[1], data[0], heads[2], heads[3], data[1], heads[4], heads[5], data[2]];
        assert_eq!(order, expect);
    }

    #[test]
    fn a_header_that_does_not_fit_is_dropped() {
        let mut pool = PacketPool::new();
        let mut q = Trimming::new(0, 80, 10);
        let a = pool.alloc(header(1));
        let b = pool.alloc(data_packet(2, 0, 0));
        let c = pool.alloc(header(3));
        assert_eq!(q.enqueue(a, &mut pool), None);
        assert_eq!(q.enqueue(b, &mut pool), None); // trimmed to 40 bytes: fits
        assert_eq!(q.enqueue(c, &mut pool), Some(c));
        assert_eq!(q.bytes(), 80);
    }
}

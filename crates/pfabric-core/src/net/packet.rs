//! Packets and the pool that owns them.
//!
//! A packet is a small plain struct. Packets live in one pool and move through queues, links and events as
//! 32-bit indices; a freed slot is reused by the next packet, so once a run reaches its working set the hot path
//! allocates nothing. Data is counted in whole packets of the run's [`PacketFormat`] (the last one of a flow
//! may be shorter); sequence numbers are packet indices within the flow.

use crate::sim::time::Time;

/// Payload bytes of a full packet by default (TCP over Ethernet's 1500-byte MTU).
pub const MSS_BYTES: u32 = 1460;
/// Header bytes on the wire by default (IP + TCP).
pub const HEADER_BYTES: u32 = 40;

/// How a flow's bytes become packets on the wire: every packet carries `header_bytes` of headers, a data packet
/// at most `mss_bytes` of payload (a flow's last packet may carry less), and a control packet (ACK, SYN, probe,
/// token) is headers alone. One format holds for the whole run: the load, the ideal FCT and every packet's
/// serialization are counted in it. The default is TCP/IP over Ethernet's 1500-byte MTU; the AIFO authors'
/// netbench counts 60 bytes of TCP and 60 of IP headers in a 1500-byte packet, so 1380 bytes of payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketFormat {
    pub mss_bytes: u32,
    pub header_bytes: u32,
}

impl Default for PacketFormat {
    fn default() -> Self {
        PacketFormat::DEFAULT
    }
}

impl PacketFormat {
    pub const DEFAULT: PacketFormat = PacketFormat { mss_bytes: MSS_BYTES, header_bytes: HEADER_BYTES };

    /// Wire bytes of a data packet carrying `payload` bytes.
    #[inline]
    pub const fn wire_bytes(self, payload: u32) -> u32 {
        payload + self.header_bytes
    }

    /// Wire bytes of a full data packet.
    #[inline]
    pub const fn full_wire_bytes(self) -> u32 {
        self.mss_bytes + self.header_bytes
    }

    /// Wire bytes of an ACK, a SYN, a probe or a token: headers alone.
    #[inline]
    pub const fn control_wire_bytes(self) -> u32 {
        self.header_bytes
    }

    /// Number of packets a flow of `size_bytes` occupies (at least one).
    #[inline]
    pub fn packets_for(self, size_bytes: u64) -> u64 {
        size_bytes.div_ceil(self.mss_bytes as u64).max(1)
    }

    /// Payload bytes of packet `i` of a flow of `size_bytes` in `npkts` packets: full but for the last.
    #[inline]
    pub fn payload_of(self, size_bytes: u64, npkts: u32, i: u32) -> u32 {
        if i + 1 == npkts {
            (size_bytes - (npkts as u64 - 1) * self.mss_bytes as u64) as u32
        } else {
            self.mss_bytes
        }
    }

    /// Total wire bytes of a flow's data packets.
    pub fn flow_wire_bytes(self, size_bytes: u64) -> u64 {
        size_bytes + self.packets_for(size_bytes) * self.header_bytes as u64
    }

    /// Bytes rounded up to whole packets (at least one).
    pub fn round_up_to_packets(self, bytes: f64) -> u64 {
        let packets = (bytes / self.mss_bytes as f64).ceil().max(1.0) as u64;
        packets * self.mss_bytes as u64
    }
}

pub type PacketId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PacketKind {
    Data,
    Ack,
    /// A header-only probe (pFabric's probe mode): acknowledged like data but carries nothing. pHost's RTS.
    Probe,
    /// A receiver's credit for one packet (pHost's token): `seq` names the packet, `sent_at` starts its
    /// lifetime, `ack` carries the packets the receiver still misses. Homa's grant; NDP's pull (`seq`: its
    /// number).
    Grant,
    /// A data packet whose payload a switch cut (NDP's trimming port): a header that names the packet.
    Trimmed,
    /// NDP: the receiver's answer to a trimmed packet, asking for packet `seq` again.
    Nack,
    /// NDP: a trimmed header that found its header queue full, returned to its sender (its `src` and `dst`
    /// swapped), which sends the packet again.
    Bounced,
}

/// One cache line, aligned to one: the pool's slots then each sit on a single line (a plain vector of
/// 64-byte items starts 16 bytes into a line, and every packet spanned two: two misses per packet-hop where
/// the packets outgrow the caches).
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
pub struct Packet {
    /// Smaller is more urgent. ACKs carry 0.
    pub priority: u64,
    /// Time the sender handed this (data) packet to its NIC; an ACK echoes its data packet's value.
    pub sent_at: Time,
    pub flow: u32,
    /// Data: packet index in the flow. ACK: index of the data packet that triggered it (its SACK block).
    pub seq: u32,
    /// ACK: cumulative acknowledgement, the next packet index expected.
    pub ack: u32,
    pub src: u32,
    pub dst: u32,
    /// Data: the bytes of the flow it carries. A credit (a control packet that carries no data): its number,
    /// where the scheme has one (pHost's token, Homa's RESEND, the pull on NDP's ACK or NACK; 0: none).
    pub payload: u32,
    pub wire: u32,
    pub kind: PacketKind,
    /// Congestion experienced (set by an ECN-marking queue).
    pub ce: bool,
    /// ACK: echo of the data packet's CE mark.
    pub ece: bool,
    /// Data: this is a retransmission.
    pub retransmit: bool,
    /// Data: the bin of the priority number in the loss tables, found once when the packet enters the
    /// network rather than at every hop.
    pub loss_bin: u8,
    /// PDQ's rate header: the rate the sender asks for, lowered by each port to what it grants (0: pause); an
    /// ACK echoes it back. 0 and unused in every other scheme (the receiver-driven hosts' credits carry their
    /// numbers in `payload`: a credit carries no data), which lets a partitioned run's handover carry a
    /// packet's arrival time here, and its node in `paused_by` (`engine::parallel::Handover`).
    pub rate_bps: u64,
    /// PDQ: the port (id + 1) that paused the flow, 0 if none; carried from ACK to the next header so that
    /// other ports do not hold capacity for a flow paused elsewhere.
    pub paused_by: u32,
}

impl Packet {
    /// A header-only packet of `kind` (a probe, a receiver's credit: pHost's token, Homa's grant, NDP's pull)
    /// at the top priority, naming packet (or number) `seq` of `flow`, from `from` to `to`; the schemes set
    /// their own extra fields on it.
    pub fn header(kind: PacketKind, flow: u32, seq: u32, from: u32, to: u32, now: Time, wire: u32) -> Packet {
        Packet {
            priority: 0,
            sent_at: now,
            flow,
            seq,
            ack: 0,
            src: from,
            dst: to,
            payload: 0,
            wire,
            kind,
            ce: false,
            ece: false,
            retransmit: false,
            loss_bin: 0,
            rate_bps: 0,
            paused_by: 0,
        }
    }
}

/// Owner of every packet in the network.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
    live: usize,
}

impl PacketPool {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        self.live += 1;
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            id
        } else {
            if self.slots.len() == self.slots.capacity() {
                self.grow();
            }
            self.slots.push(p);
            (self.slots.len() - 1) as PacketId
        }
    }

    /// Double the slots (as a push would) into storage asked to sit on huge pages (`sim::vec_on_huge_pages`):
    /// a large fabric keeps 100,000 packets and more in flight.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let mut slots = crate::sim::vec_on_huge_pages((self.slots.capacity() * 2).max(64));
        slots.append(&mut self.slots);
        self.slots = slots;
    }

    #[inline]
    pub fn release(&mut self, id: PacketId) {
        self.live -= 1;
        self.free.push(id);
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id as usize]
    }

    /// The packet in slot `id`, if there is such a slot (for prefetching, where an id may be stale).
    #[inline(always)]
    pub fn try_get(&self, id: PacketId) -> Option<&Packet> {
        self.slots.get(id as usize)
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Ask the cache for packet `id` ahead of its use (a hint: no effect on results).
    #[inline(always)]
    pub fn prefetch(&self, id: PacketId) {
        if let Some(p) = self.slots.get(id as usize) {
            crate::sim::prefetch(p);
        }
    }

    /// Packets currently alive (queued or on a wire).
    pub fn live(&self) -> usize {
        self.live
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_is_one_cache_line_and_its_slots_sit_on_lines() {
        assert_eq!(std::mem::size_of::<Packet>(), 64, "a field added: the packet now spans two lines");
        let mut pool = PacketPool::new();
        let p = Packet::header(PacketKind::Ack, 0, 0, 0, 1, 0, 40);
        let ids: Vec<PacketId> = (0..5000).map(|_| pool.alloc(p)).collect();
        for id in ids {
            assert_eq!(pool.get(id) as *const Packet as usize % 64, 0);
        }
    }
}

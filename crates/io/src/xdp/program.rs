//! The XDP program linerate attaches: frames of one ethertype go to the
//! AF_XDP socket of their receive queue, stamped with the time XDP saw
//! them; every other frame goes on to the kernel untouched.
//!
//! In C it would read:
//!
//! ```c
//! if (data + 14 > data_end || eth->h_proto != htons(ETHERTYPE)) return XDP_PASS;
//! counters[0] += 1;                               // frames of ours seen
//! if (bpf_xdp_adjust_meta(ctx, -16) == 0 && meta + 16 <= data) {
//!     meta->ns = bpf_ktime_get_ns();              // CLOCK_MONOTONIC
//!     meta->check = meta->ns ^ STAMP_CHECK;
//! }
//! return bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_PASS);
//! ```
//!
//! The stamp rides in the frame's XDP metadata, which the kernel copies
//! into the socket's memory just before the frame; the check word lets the
//! receiver tell a stamp from stale bytes. A queue without a socket in the
//! map passes its frames to the kernel instead of dropping them.

use super::insn::{Asm, Cond, Helper, Insn, LabelError, Reg, Size};

/// `XDP_PASS`: hand the frame to the kernel's stack.
const XDP_PASS: i32 = 2;

/// Bytes of metadata the program puts before each frame.
pub const META_LEN: usize = 16;

/// XORed into the stamp to make the check word.
pub const STAMP_CHECK: u64 = 0x5afe_fade;

/// Offsets in `struct xdp_md`.
mod ctx {
    pub const DATA: i16 = 0;
    pub const DATA_END: i16 = 4;
    pub const DATA_META: i16 = 8;
    pub const RX_QUEUE_INDEX: i16 = 16;
}

/// Index of the "frames of our ethertype seen" counter in the counter map.
pub const COUNTER_SEEN: u32 = 0;
/// Slots of the counter map.
pub const COUNTERS: u32 = 1;

/// Builds the program for `ethertype`, redirecting into the XSKMAP
/// `xsks_fd` and counting into the array map `counters_fd`.
pub fn ethertype_to_xsk(
    ethertype: u16,
    xsks_fd: i32,
    counters_fd: i32,
) -> Result<Vec<Insn>, LabelError> {
    // The ethertype as a 16-bit load from the frame reads it.
    let wire = i32::from(u16::from_ne_bytes(ethertype.to_be_bytes()));
    let mut a = Asm::new();
    a.mov(Reg::R6, Reg::R1)
        .load(Size::W, Reg::R2, Reg::R6, ctx::DATA)
        .load(Size::W, Reg::R3, Reg::R6, ctx::DATA_END)
        .mov(Reg::R4, Reg::R2)
        .add_imm(Reg::R4, 14)
        .jump_reg(Cond::Gt, Reg::R4, Reg::R3, "pass")
        .load(Size::H, Reg::R5, Reg::R2, 12)
        .jump_imm(Cond::Ne, Reg::R5, wire, "pass")
        // counters[COUNTER_SEEN] += 1
        .mov_imm(Reg::R1, COUNTER_SEEN as i32)
        .store(Size::W, Reg::R10, -4, Reg::R1)
        .mov(Reg::R2, Reg::R10)
        .add_imm(Reg::R2, -4)
        .load_map_fd(Reg::R1, counters_fd)
        .call(Helper::MapLookupElem)
        .jump_imm(Cond::Eq, Reg::R0, 0, "stamp")
        .mov_imm(Reg::R1, 1)
        .atomic_add64(Reg::R0, 0, Reg::R1)
        .label("stamp")
        .mov(Reg::R1, Reg::R6)
        .mov_imm(Reg::R2, -(META_LEN as i32))
        .call(Helper::XdpAdjustMeta)
        .jump_imm(Cond::Ne, Reg::R0, 0, "redirect")
        .call(Helper::KtimeGetNs)
        .mov(Reg::R7, Reg::R0)
        // Packet pointers are stale after adjust_meta: reload them.
        .load(Size::W, Reg::R2, Reg::R6, ctx::DATA_META)
        .load(Size::W, Reg::R3, Reg::R6, ctx::DATA)
        .mov(Reg::R4, Reg::R2)
        .add_imm(Reg::R4, META_LEN as i32)
        .jump_reg(Cond::Gt, Reg::R4, Reg::R3, "redirect")
        .store(Size::DW, Reg::R2, 0, Reg::R7)
        .xor_imm(Reg::R7, STAMP_CHECK as i32)
        .store(Size::DW, Reg::R2, 8, Reg::R7)
        .label("redirect")
        .load(Size::W, Reg::R2, Reg::R6, ctx::RX_QUEUE_INDEX)
        .load_map_fd(Reg::R1, xsks_fd)
        .mov_imm(Reg::R3, XDP_PASS)
        .call(Helper::RedirectMap)
        .exit()
        .label("pass")
        .mov_imm(Reg::R0, XDP_PASS)
        .exit();
    a.finish()
}

/// `XDP_DROP`: free the frame in the driver.
const XDP_DROP: i32 = 1;

/// Builds a program that drops IPv4 UDP datagrams (without IP options) to
/// `port` in the driver and passes everything else on. It is the cheapest
/// possible receiver of a stream: what an interface costs per packet before
/// any protocol work or copy, the floor every receive path sits on
/// (`linerate bench floor`).
pub fn udp_port_drop(port: u16) -> Result<Vec<Insn>, LabelError> {
    let ipv4 = i32::from(u16::from_ne_bytes(0x0800u16.to_be_bytes()));
    let port = i32::from(u16::from_ne_bytes(port.to_be_bytes()));
    let mut a = Asm::new();
    a.load(Size::W, Reg::R2, Reg::R1, ctx::DATA)
        .load(Size::W, Reg::R3, Reg::R1, ctx::DATA_END)
        .mov(Reg::R4, Reg::R2)
        .add_imm(Reg::R4, 14 + 20 + 8)
        .jump_reg(Cond::Gt, Reg::R4, Reg::R3, "pass")
        .load(Size::H, Reg::R5, Reg::R2, 12)
        .jump_imm(Cond::Ne, Reg::R5, ipv4, "pass")
        .load(Size::B, Reg::R5, Reg::R2, 14)
        .jump_imm(Cond::Ne, Reg::R5, 0x45, "pass")
        .load(Size::B, Reg::R5, Reg::R2, 14 + 9)
        .jump_imm(Cond::Ne, Reg::R5, 17, "pass")
        .load(Size::H, Reg::R5, Reg::R2, 14 + 20 + 2)
        .jump_imm(Cond::Ne, Reg::R5, port, "pass")
        .mov_imm(Reg::R0, XDP_DROP)
        .exit()
        .label("pass")
        .mov_imm(Reg::R0, XDP_PASS)
        .exit();
    a.finish()
}

/// Reads the stamp the program left in the `META_LEN` bytes before a
/// frame, if the check word confirms it.
pub fn read_stamp(meta: &[u8; META_LEN]) -> Option<u64> {
    let mut ns = [0u8; 8];
    let mut check = [0u8; 8];
    ns.copy_from_slice(&meta[..8]);
    check.copy_from_slice(&meta[8..]);
    let ns = u64::from_ne_bytes(ns);
    (ns != 0 && u64::from_ne_bytes(check) == ns ^ STAMP_CHECK).then_some(ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_assembles_and_ends_every_path_in_exit() {
        let p = ethertype_to_xsk(0xfade, 3, 4).expect("labels resolve");
        assert_eq!(p.iter().filter(|i| i.code == 0x95).count(), 2);
        // The ethertype is compared as the frame's bytes read it.
        let cmp = p.iter().find(|i| i.code == 0x55).expect("ethertype test");
        assert_eq!(cmp.imm, i32::from(u16::from_ne_bytes([0xfa, 0xde])));
        // Both map references name the given descriptors.
        let maps: Vec<i32> = p.iter().filter(|i| i.code == 0x18).map(|i| i.imm).collect();
        assert_eq!(maps, vec![4, 3]);
    }

    #[test]
    fn the_floor_program_compares_the_port_as_the_frame_reads_it() {
        let p = udp_port_drop(20202).expect("labels resolve");
        let port = i32::from(u16::from_ne_bytes(20202u16.to_be_bytes()));
        assert!(p.iter().any(|i| i.code == 0x55 && i.imm == port));
        assert_eq!(p.iter().filter(|i| i.code == 0x95).count(), 2);
    }

    #[test]
    fn a_stamp_needs_its_check_word() {
        let mut m = [0u8; META_LEN];
        m[..8].copy_from_slice(&12345u64.to_ne_bytes());
        m[8..].copy_from_slice(&(12345u64 ^ STAMP_CHECK).to_ne_bytes());
        assert_eq!(read_stamp(&m), Some(12345));
        m[9] ^= 1;
        assert_eq!(read_stamp(&m), None);
        assert_eq!(read_stamp(&[0u8; META_LEN]), None);
    }
}

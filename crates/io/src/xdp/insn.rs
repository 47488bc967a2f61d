//! A small eBPF assembler: the instruction encoding of the kernel's
//! `linux/bpf.h` and `linux/bpf_common.h`, and a program builder with
//! named jump targets.
//!
//! linerate's XDP programs are a few dozen instructions that sort frames by
//! ethertype. Building them here, instead of compiling C with clang, keeps
//! the build free of a BPF toolchain: `cargo build` is all a user needs,
//! and the bytes the kernel verifies are visible in this crate's tests.

use std::collections::HashMap;

/// Instruction classes (the low three bits of the opcode).
mod class {
    pub const LD: u8 = 0x00;
    pub const LDX: u8 = 0x01;
    pub const STX: u8 = 0x03;
    pub const JMP: u8 = 0x05;
    pub const ALU64: u8 = 0x07;
}

/// Source operand: the immediate (`K`) or the source register (`X`).
const SRC_K: u8 = 0x00;
const SRC_X: u8 = 0x08;

/// Memory access mode bits.
const MODE_IMM: u8 = 0x00;
const MODE_MEM: u8 = 0x60;
const MODE_ATOMIC: u8 = 0xc0;

/// ALU operations.
const ALU_ADD: u8 = 0x00;
const ALU_XOR: u8 = 0xa0;
const ALU_MOV: u8 = 0xb0;

/// Jump operations.
const JMP_JA: u8 = 0x00;
const JMP_CALL: u8 = 0x80;
const JMP_EXIT: u8 = 0x90;

/// `src_reg` of a 64-bit immediate load that names a map by file descriptor.
const PSEUDO_MAP_FD: u8 = 1;

/// An eBPF register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Reg {
    /// Return value, and helpers' results.
    R0 = 0,
    /// First argument; the program's context on entry.
    R1,
    /// Second argument.
    R2,
    /// Third argument.
    R3,
    /// Fourth argument.
    R4,
    /// Fifth argument.
    R5,
    /// Callee-saved: survives helper calls.
    R6,
    /// Callee-saved.
    R7,
    /// Callee-saved.
    R8,
    /// Callee-saved.
    R9,
    /// Read-only frame pointer.
    R10,
}

/// Width of a memory access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// 1 byte.
    B,
    /// 2 bytes.
    H,
    /// 4 bytes.
    W,
    /// 8 bytes.
    DW,
}

impl Size {
    fn bits(self) -> u8 {
        match self {
            Size::W => 0x00,
            Size::H => 0x08,
            Size::B => 0x10,
            Size::DW => 0x18,
        }
    }
}

/// A conditional jump's comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cond {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// unsigned `>`
    Gt,
    /// unsigned `>=`
    Ge,
}

impl Cond {
    fn op(self) -> u8 {
        match self {
            Cond::Eq => 0x10,
            Cond::Gt => 0x20,
            Cond::Ge => 0x30,
            Cond::Ne => 0x50,
        }
    }
}

/// Kernel helper functions the programs call (`enum bpf_func_id`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum Helper {
    /// `void *bpf_map_lookup_elem(map, key)`.
    MapLookupElem = 1,
    /// `u64 bpf_ktime_get_ns(void)`: CLOCK_MONOTONIC.
    KtimeGetNs = 5,
    /// `long bpf_redirect_map(map, key, flags)`.
    RedirectMap = 51,
    /// `long bpf_xdp_adjust_meta(xdp_md, delta)`.
    XdpAdjustMeta = 54,
}

/// One 8-byte eBPF instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Insn {
    /// Opcode: class, size or operation, source.
    pub code: u8,
    /// Destination register (low nibble) and source register (high nibble).
    pub regs: u8,
    /// Signed offset: of a memory access, or of a jump in instructions.
    pub off: i16,
    /// Signed immediate.
    pub imm: i32,
}

impl Insn {
    fn new(code: u8, dst: Reg, src: Reg, off: i16, imm: i32) -> Insn {
        Insn {
            code,
            regs: (dst as u8) | ((src as u8) << 4),
            off,
            imm,
        }
    }

    /// The instruction as the kernel reads it (`struct bpf_insn`, host order).
    pub fn to_bytes(self) -> [u8; 8] {
        let mut b = [0u8; 8];
        b[0] = self.code;
        b[1] = self.regs;
        b[2..4].copy_from_slice(&self.off.to_ne_bytes());
        b[4..8].copy_from_slice(&self.imm.to_ne_bytes());
        b
    }
}

/// Where a jump goes: fixed up when the program is finished.
#[derive(Debug, Clone)]
struct Fixup {
    at: usize,
    label: &'static str,
}

/// A program under construction. Jumps name labels; [`Self::finish`]
/// resolves them and fails on a label that was never placed.
#[derive(Debug, Default, Clone)]
pub struct Asm {
    insns: Vec<Insn>,
    labels: HashMap<&'static str, usize>,
    fixups: Vec<Fixup>,
}

/// A jump to a label that was never placed, or one too far to encode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("eBPF program: jump to label `{label}` cannot be resolved ({why})")]
pub struct LabelError {
    /// The label.
    pub label: &'static str,
    /// Why.
    pub why: &'static str,
}

impl Asm {
    /// An empty program.
    pub fn new() -> Asm {
        Asm::default()
    }

    fn push(&mut self, i: Insn) -> &mut Asm {
        self.insns.push(i);
        self
    }

    /// Marks the next instruction as `label`.
    pub fn label(&mut self, label: &'static str) -> &mut Asm {
        self.labels.insert(label, self.insns.len());
        self
    }

    /// `dst = src` (64-bit).
    pub fn mov(&mut self, dst: Reg, src: Reg) -> &mut Asm {
        self.push(Insn::new(class::ALU64 | ALU_MOV | SRC_X, dst, src, 0, 0))
    }

    /// `dst = imm` (64-bit, sign-extended).
    pub fn mov_imm(&mut self, dst: Reg, imm: i32) -> &mut Asm {
        self.push(Insn::new(
            class::ALU64 | ALU_MOV | SRC_K,
            dst,
            Reg::R0,
            0,
            imm,
        ))
    }

    /// `dst += imm` (64-bit).
    pub fn add_imm(&mut self, dst: Reg, imm: i32) -> &mut Asm {
        self.push(Insn::new(
            class::ALU64 | ALU_ADD | SRC_K,
            dst,
            Reg::R0,
            0,
            imm,
        ))
    }

    /// `dst ^= imm` (64-bit, the immediate sign-extended).
    pub fn xor_imm(&mut self, dst: Reg, imm: i32) -> &mut Asm {
        self.push(Insn::new(
            class::ALU64 | ALU_XOR | SRC_K,
            dst,
            Reg::R0,
            0,
            imm,
        ))
    }

    /// `dst = *(size *)(src + off)`.
    pub fn load(&mut self, size: Size, dst: Reg, src: Reg, off: i16) -> &mut Asm {
        self.push(Insn::new(
            class::LDX | MODE_MEM | size.bits(),
            dst,
            src,
            off,
            0,
        ))
    }

    /// `*(size *)(dst + off) = src`.
    pub fn store(&mut self, size: Size, dst: Reg, off: i16, src: Reg) -> &mut Asm {
        self.push(Insn::new(
            class::STX | MODE_MEM | size.bits(),
            dst,
            src,
            off,
            0,
        ))
    }

    /// `lock *(u64 *)(dst + off) += src`: an atomic add, for counters
    /// shared by every CPU.
    pub fn atomic_add64(&mut self, dst: Reg, off: i16, src: Reg) -> &mut Asm {
        self.push(Insn::new(
            class::STX | MODE_ATOMIC | Size::DW.bits(),
            dst,
            src,
            off,
            i32::from(ALU_ADD),
        ))
    }

    /// `dst = map` by file descriptor (a two-slot 64-bit immediate load).
    pub fn load_map_fd(&mut self, dst: Reg, map_fd: i32) -> &mut Asm {
        let code = class::LD | MODE_IMM | Size::DW.bits();
        self.push(Insn {
            code,
            regs: (dst as u8) | (PSEUDO_MAP_FD << 4),
            off: 0,
            imm: map_fd,
        });
        self.push(Insn {
            code: 0,
            regs: 0,
            off: 0,
            imm: 0,
        })
    }

    /// `if dst <cond> imm goto label`.
    pub fn jump_imm(&mut self, cond: Cond, dst: Reg, imm: i32, label: &'static str) -> &mut Asm {
        self.fixup(label);
        self.push(Insn::new(
            class::JMP | cond.op() | SRC_K,
            dst,
            Reg::R0,
            0,
            imm,
        ))
    }

    /// `if dst <cond> src goto label`.
    pub fn jump_reg(&mut self, cond: Cond, dst: Reg, src: Reg, label: &'static str) -> &mut Asm {
        self.fixup(label);
        self.push(Insn::new(class::JMP | cond.op() | SRC_X, dst, src, 0, 0))
    }

    /// `goto label`.
    pub fn jump(&mut self, label: &'static str) -> &mut Asm {
        self.fixup(label);
        self.push(Insn::new(class::JMP | JMP_JA, Reg::R0, Reg::R0, 0, 0))
    }

    /// Calls a kernel helper: arguments in R1-R5, result in R0, R1-R5 clobbered.
    pub fn call(&mut self, helper: Helper) -> &mut Asm {
        self.push(Insn::new(
            class::JMP | JMP_CALL,
            Reg::R0,
            Reg::R0,
            0,
            helper as i32,
        ))
    }

    /// Returns R0.
    pub fn exit(&mut self) -> &mut Asm {
        self.push(Insn::new(class::JMP | JMP_EXIT, Reg::R0, Reg::R0, 0, 0))
    }

    fn fixup(&mut self, label: &'static str) {
        self.fixups.push(Fixup {
            at: self.insns.len(),
            label,
        });
    }

    /// Resolves every jump and returns the instructions.
    pub fn finish(&self) -> Result<Vec<Insn>, LabelError> {
        let mut insns = self.insns.clone();
        for f in &self.fixups {
            let target = *self.labels.get(f.label).ok_or(LabelError {
                label: f.label,
                why: "never placed",
            })?;
            // A jump's offset counts from the instruction after it.
            let off = target as i64 - f.at as i64 - 1;
            insns[f.at].off = i16::try_from(off).map_err(|_| LabelError {
                label: f.label,
                why: "more than 32767 instructions away",
            })?;
        }
        Ok(insns)
    }
}

/// The instructions as the byte array `BPF_PROG_LOAD` takes.
pub fn to_bytes(insns: &[Insn]) -> Vec<u8> {
    insns.iter().flat_map(|i| i.to_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_match_the_kernel_headers() {
        // Reference values from linux/bpf.h's instruction macros.
        let mut a = Asm::new();
        a.mov(Reg::R6, Reg::R1) // BPF_MOV64_REG(R6, R1) = 0xbf, 0x16
            .mov_imm(Reg::R0, 2) // BPF_MOV64_IMM(R0, 2) = 0xb7
            .load(Size::W, Reg::R2, Reg::R6, 4) // BPF_LDX_MEM(W) = 0x61
            .load(Size::H, Reg::R5, Reg::R2, 12) // BPF_LDX_MEM(H) = 0x69
            .store(Size::DW, Reg::R2, 0, Reg::R7) // BPF_STX_MEM(DW) = 0x7b
            .atomic_add64(Reg::R0, 0, Reg::R1) // BPF_ATOMIC_OP(DW, ADD) = 0xdb
            .call(Helper::RedirectMap) // 0x85, imm 51
            .exit(); // 0x95
        let i = a.finish().expect("no labels");
        assert_eq!((i[0].code, i[0].regs), (0xbf, 0x16));
        assert_eq!((i[1].code, i[1].imm), (0xb7, 2));
        assert_eq!((i[2].code, i[2].regs, i[2].off), (0x61, 0x62, 4));
        assert_eq!((i[3].code, i[3].regs, i[3].off), (0x69, 0x25, 12));
        assert_eq!((i[4].code, i[4].regs), (0x7b, 0x72));
        assert_eq!((i[5].code, i[5].regs, i[5].imm), (0xdb, 0x10, 0));
        assert_eq!((i[6].code, i[6].imm), (0x85, 51));
        assert_eq!(i[7].code, 0x95);
    }

    #[test]
    fn a_map_load_takes_two_slots_and_names_the_fd() {
        let mut a = Asm::new();
        a.load_map_fd(Reg::R1, 7).exit();
        let i = a.finish().expect("no labels");
        assert_eq!(i.len(), 3);
        assert_eq!((i[0].code, i[0].regs, i[0].imm), (0x18, 0x11, 7));
        assert_eq!(
            i[1],
            Insn {
                code: 0,
                regs: 0,
                off: 0,
                imm: 0
            }
        );
    }

    #[test]
    fn jumps_count_from_the_next_instruction_both_ways() {
        let mut a = Asm::new();
        a.label("top")
            .jump_imm(Cond::Ne, Reg::R5, 0xdefa, "out") // 0x55
            .jump_reg(Cond::Gt, Reg::R4, Reg::R3, "out") // 0x2d
            .jump("top") // 0x05
            .label("out")
            .exit();
        let i = a.finish().expect("labels placed");
        assert_eq!((i[0].code, i[0].off, i[0].imm), (0x55, 2, 0xdefa));
        assert_eq!((i[1].code, i[1].regs, i[1].off), (0x2d, 0x34, 1));
        assert_eq!((i[2].code, i[2].off), (0x05, -3));
    }

    #[test]
    fn a_missing_label_is_an_error_not_a_wild_jump() {
        let mut a = Asm::new();
        a.jump("nowhere").exit();
        let e = a.finish().expect_err("label never placed");
        assert_eq!(e.label, "nowhere");
        assert!(e.to_string().contains("nowhere"));
    }

    #[test]
    fn bytes_are_eight_per_instruction_in_host_order() {
        let mut a = Asm::new();
        a.mov_imm(Reg::R0, 0x0102_0304).exit();
        let b = to_bytes(&a.finish().expect("no labels"));
        assert_eq!(b.len(), 16);
        assert_eq!(&b[4..8], &0x0102_0304i32.to_ne_bytes());
    }
}

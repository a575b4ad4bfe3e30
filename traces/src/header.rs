//! The self-describing header: machine, options and kernel sources.
//!
//! A trace must be readable without `sim` or `kernels-ir`, so the header
//! carries the machine config as plain numbers, the sort options as text,
//! and each kernel as its *printed* IR, line by line, with the instruction
//! number (`pc`) that events refer to. It is stored as JSON: it is small,
//! and a person can read it with `head -c`.

use serde::{Deserialize, Serialize};

use crate::TraceOptions;

/// Everything a reader needs to interpret the events.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct TraceHeader {
    /// The version of the simsort that wrote the trace (`CARGO_PKG_VERSION`).
    pub simsort_version: String,
    /// What is recorded (level, focus, counter interval).
    pub options: TraceOptions,
    /// Every field of the machine config, in declaration order, as JSON
    /// values (numbers, or strings for enum-valued fields).
    pub config: Vec<(String, serde_json::Value)>,
    /// The run's sort options (`keys`, `warp`, `slab-height`, ...), as text.
    pub sort_options: Vec<(String, String)>,
    /// The kernels known when the trace starts; a launch names one by its
    /// index in this list (more may be added later with
    /// [`crate::TraceWriter::add_kernel`]).
    pub kernels: Vec<KernelSource>,
}

impl TraceHeader {
    /// A header for the given options, with this crate's version as the
    /// simsort version (the whole workspace shares one version).
    pub fn new(options: TraceOptions) -> Self {
        TraceHeader {
            simsort_version: env!("CARGO_PKG_VERSION").to_string(),
            options,
            ..TraceHeader::default()
        }
    }

    /// Fills [`TraceHeader::config`] from any serializable config struct
    /// (its fields become `(name, value)` pairs; a struct serializes to a
    /// JSON object, whose keys come out sorted). Returns `self` for chaining.
    pub fn with_config<T: Serialize>(mut self, config: &T) -> Result<Self, serde_json::Error> {
        let value = serde_json::to_value(config)?;
        self.config = match value {
            serde_json::Value::Object(map) => map.into_iter().collect(),
            other => vec![("config".to_string(), other)],
        };
        Ok(self)
    }

    /// The config value named `name` as a whole number, if present.
    pub fn config_u64(&self, name: &str) -> Option<u64> {
        self.config
            .iter()
            .find(|(k, _)| k == name)
            .and_then(|(_, v)| v.as_u64())
    }

    /// The sort option named `name`, if present.
    pub fn sort_option(&self, name: &str) -> Option<&str> {
        self.sort_options
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One kernel's printed IR.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct KernelSource {
    /// The kernel's name (`bs`, `fm`, ...).
    pub name: String,
    /// The printed text, one entry per line, in order.
    pub lines: Vec<IrLine>,
    /// The registers that hold the slab's keys, row 0 first (register `r`
    /// of every lane is row `r` of the slab). Empty when unknown: the replay
    /// UI then shows every 32/64-bit register the focused warp writes.
    #[serde(default)]
    pub slab_regs: Vec<RegRef>,
    /// Instructions that start a merge stage (`flip f=4`, `half m=2`, ...),
    /// so the replay UI can jump from stage to stage. May be empty.
    #[serde(default)]
    pub stages: Vec<StageMark>,
}

impl KernelSource {
    /// A kernel from its printed text and the 1-based line number of each
    /// instruction, in pc order: exactly what `kernels_ir::print_with_lines`
    /// returns. Line numbers that are out of range or not increasing are
    /// ignored (the text still shows; those pcs just have no line).
    pub fn with_inst_lines(name: &str, text: &str, inst_lines: &[u32]) -> Self {
        let mut lines: Vec<IrLine> = text
            .lines()
            .map(|l| IrLine {
                pc: None,
                text: l.to_string(),
            })
            .collect();
        let mut last = 0;
        for (pc, &line) in inst_lines.iter().enumerate() {
            let i = line as usize;
            if i > last && i <= lines.len() {
                lines[i - 1].pc = Some(pc as u32);
                last = i;
            }
        }
        KernelSource {
            name: name.to_string(),
            lines,
            ..KernelSource::default()
        }
    }

    /// A kernel from its printed text, guessing which lines are
    /// instructions (for hand-written traces and tests; the simulator
    /// should use [`KernelSource::with_inst_lines`]).
    ///
    /// A line is taken to be an instruction unless, trimmed, it is empty,
    /// a label (`name:`), a comment (`;`, `//`, `#`), a brace, or a line of
    /// the canonical kernel header (`kernel k {`, `param ...`, `regs ...`,
    /// `shared ...`). Instructions are numbered 0, 1, 2, ... in order.
    pub fn from_text(name: &str, text: &str) -> Self {
        const HEADER_WORDS: [&str; 4] = ["kernel ", "param ", "regs ", "shared "];
        let mut pc = 0;
        let lines = text
            .lines()
            .map(|line| {
                let t = line.trim();
                let is_inst = !(t.is_empty()
                    || t.ends_with(':')
                    || t.ends_with('{')
                    || t == "}"
                    || t.starts_with(';')
                    || t.starts_with("//")
                    || t.starts_with('#')
                    || HEADER_WORDS.iter().any(|w| t.starts_with(w)));
                let this = is_inst.then(|| {
                    pc += 1;
                    pc - 1
                });
                IrLine {
                    pc: this,
                    text: line.to_string(),
                }
            })
            .collect();
        KernelSource {
            name: name.to_string(),
            lines,
            ..KernelSource::default()
        }
    }

    /// The line index of instruction `pc`, if there is one (a linear scan;
    /// callers that ask often should build their own table).
    pub fn line_of_pc(&self, pc: u32) -> Option<usize> {
        self.lines.iter().position(|l| l.pc == Some(pc))
    }
}

/// One line of printed IR.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IrLine {
    /// The instruction number events use, or `None` for labels, comments
    /// and other lines that are not instructions.
    pub pc: Option<u32>,
    /// The text as printed, without the line break.
    pub text: String,
}

/// An instruction that begins a merge stage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageMark {
    /// The first instruction of the stage.
    pub pc: u32,
    /// A short name (`flip f=8`, `half m=2`, `smem flip`, ...).
    pub label: String,
}

/// A register in the IR's three numbering spaces (`r`, `d`, `p`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RegRef {
    /// The register class.
    pub class: RegClass,
    /// The number within the class.
    pub index: u32,
}

impl std::fmt::Display for RegRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.class.prefix(), self.index)
    }
}

/// The class of a register, which fixes its width (mirrors `kernels-ir`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum RegClass {
    /// A 32-bit register, printed `rN`.
    B32,
    /// A 64-bit register, printed `dN`.
    B64,
    /// A predicate, printed `pN` (values 0 or 1).
    Pred,
}

impl RegClass {
    /// The text prefix of registers of this class.
    pub const fn prefix(self) -> char {
        match self {
            RegClass::B32 => 'r',
            RegClass::B64 => 'd',
            RegClass::Pred => 'p',
        }
    }

    /// The class's code in the binary format.
    pub(crate) const fn code(self) -> u8 {
        match self {
            RegClass::B32 => 0,
            RegClass::B64 => 1,
            RegClass::Pred => 2,
        }
    }

    /// The class with binary code `code`, if any.
    pub(crate) const fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(RegClass::B32),
            1 => Some(RegClass::B64),
            2 => Some(RegClass::Pred),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_text_numbers_only_instruction_lines() {
        let k = KernelSource::from_text(
            "k",
            "kernel k {\n    regs r2 d0 p0\n  block0:\n    mov r0, 1\n    ; note\n    add r1, r0, r0\n  \
             block1:\n    exit\n}\n",
        );
        let pcs: Vec<_> = k.lines.iter().map(|l| l.pc).collect();
        assert_eq!(
            pcs,
            [
                None,
                None,
                None,
                Some(0),
                None,
                Some(1),
                None,
                Some(2),
                None
            ]
        );
        assert_eq!(k.line_of_pc(1), Some(5));
        assert_eq!(k.line_of_pc(2), Some(7));
        assert_eq!(k.line_of_pc(3), None);
    }

    #[test]
    fn inst_lines_from_the_printer_place_each_pc() {
        let text = "kernel k {\n    regs r1 d0 p0\n    mov r0, 1\n  done:\n    exit\n}\n";
        let k = KernelSource::with_inst_lines("k", text, &[3, 5]);
        let pcs: Vec<_> = k.lines.iter().map(|l| l.pc).collect();
        assert_eq!(pcs, [None, None, Some(0), None, Some(1), None]);
        // Bad line numbers are ignored rather than trusted.
        let k = KernelSource::with_inst_lines("k", text, &[3, 2, 99]);
        assert_eq!(k.lines.iter().filter(|l| l.pc.is_some()).count(), 1);
    }

    #[test]
    fn config_from_a_struct_keeps_every_field() {
        #[derive(Serialize)]
        struct Cfg {
            warp_size: u32,
            clock_ghz: f64,
        }
        let h = TraceHeader::new(TraceOptions::default())
            .with_config(&Cfg {
                warp_size: 16,
                clock_ghz: 1.98,
            })
            .unwrap();
        assert_eq!(h.config_u64("warp_size"), Some(16));
        assert_eq!(h.config.len(), 2);
    }
}

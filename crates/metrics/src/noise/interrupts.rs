//! Interrupt counts of one CPU from `/proc/interrupts`, read before and
//! after a noise probe, so its report can say what took the CPU away
//! (the local timer, reschedule or function-call IPIs, a device).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{read_text, Error, Result};

/// One interrupt source's count on the probed CPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InterruptCount {
    /// The kernel's label (`LOC`, `RES`, `CAL`, or an IRQ number).
    pub label: String,
    /// What the kernel calls it (`Local timer interrupts`, `virtio0-input.0`).
    pub description: String,
    /// Interrupts counted on the CPU.
    pub count: u64,
}

/// The per-source counts of one CPU at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InterruptSnapshot {
    counts: BTreeMap<String, (String, u64)>,
}

impl InterruptSnapshot {
    /// Reads `/proc/interrupts` now, for `cpu`.
    pub fn take(cpu: usize) -> Result<InterruptSnapshot> {
        Self::parse(&read_text(Path::new("/proc/interrupts"))?, cpu)
    }

    /// Parses the text of `/proc/interrupts` for `cpu`: the header names
    /// the online CPUs' columns; lines with fewer counts than columns
    /// (global ones like `ERR`) are left out.
    pub fn parse(text: &str, cpu: usize) -> Result<InterruptSnapshot> {
        let mut lines = text.lines();
        let header = lines.next().unwrap_or_default();
        let columns: Vec<&str> = header.split_whitespace().collect();
        let name = format!("CPU{cpu}");
        let column = columns
            .iter()
            .position(|c| *c == name)
            .ok_or_else(|| Error::Format {
                path: "/proc/interrupts".into(),
                reason: format!("no column for {name} (offline?) in header {header:?}"),
            })?;
        let mut counts = BTreeMap::new();
        for line in lines {
            let Some((label, rest)) = line.split_once(':') else {
                continue;
            };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            if fields.len() < columns.len()
                || !fields[..columns.len()]
                    .iter()
                    .all(|f| f.bytes().all(|b| b.is_ascii_digit()))
            {
                continue;
            }
            let count = fields[column].parse::<u64>().map_err(|e| Error::Parse {
                line: line.to_owned(),
                reason: format!("count {:?}: {e}", fields[column]),
            })?;
            let description = fields[columns.len()..].join(" ");
            counts.insert(label.trim().to_owned(), (description, count));
        }
        Ok(InterruptSnapshot { counts })
    }

    /// The interrupts since `earlier`, busiest source first, sources
    /// without any left out.
    pub fn since(&self, earlier: &InterruptSnapshot) -> Vec<InterruptCount> {
        let mut v: Vec<InterruptCount> = self
            .counts
            .iter()
            .filter_map(|(label, (description, now))| {
                let then = earlier.counts.get(label).map_or(0, |(_, c)| *c);
                let count = now.saturating_sub(then);
                (count > 0).then(|| InterruptCount {
                    label: label.clone(),
                    description: description.clone(),
                    count,
                })
            })
            .collect();
        v.sort_by(|a, b| b.count.cmp(&a.count).then(a.label.cmp(&b.label)));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: &str = "           CPU0       CPU1
  0:         44          0   IO-APIC   2-edge      timer
 24:       1000        200   PCI-MSI 49152-edge      virtio0-input.0
NMI:          0          0   Non-maskable interrupts
LOC:      50000      40000   Local timer interrupts
RES:        300        100   Rescheduling interrupts
ERR:          0
";
    const AFTER: &str = "           CPU0       CPU1
  0:         44          0   IO-APIC   2-edge      timer
 24:       1100        203   PCI-MSI 49152-edge      virtio0-input.0
NMI:          0          0   Non-maskable interrupts
LOC:      51000      41250   Local timer interrupts
RES:        300        150   Rescheduling interrupts
ERR:          7
";

    #[test]
    fn counts_of_one_cpu_busiest_first() {
        let a = InterruptSnapshot::parse(BEFORE, 1).expect("parses");
        let b = InterruptSnapshot::parse(AFTER, 1).expect("parses");
        let d = b.since(&a);
        let got: Vec<_> = d.iter().map(|c| (c.label.as_str(), c.count)).collect();
        assert_eq!(got, [("LOC", 1250), ("RES", 50), ("24", 3)]);
        assert_eq!(d[0].description, "Local timer interrupts");
        assert_eq!(d[2].description, "PCI-MSI 49152-edge virtio0-input.0");
    }

    #[test]
    fn a_cpu_without_a_column_is_an_error_naming_it() {
        let e = InterruptSnapshot::parse(BEFORE, 5).expect_err("no CPU5");
        assert!(e.to_string().contains("CPU5"), "{e}");
    }
}

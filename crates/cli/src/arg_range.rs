//! Checked ranges for numeric command-line arguments.
//!
//! Every count, size and duration a command takes goes through one of
//! these (or clap's own `value_parser!(u32).range(..)`), so a value out of
//! range is refused while parsing, with an error that names the argument,
//! the value and the range allowed, instead of growing memory without bound
//! or panicking deep in the program.

use std::ffi::OsStr;
use std::fmt::Display;
use std::ops::RangeInclusive;
use std::str::FromStr;
use std::time::Duration;

use clap::builder::{RangedU64ValueParser, TypedValueParser};

/// One KiB.
pub const KIB: u64 = 1 << 10;
/// One MiB.
pub const MIB: u64 = 1 << 20;
/// One GiB.
pub const GIB: u64 = 1 << 30;

/// A `usize` in `range` (clap ranges `usize` only through `u64`).
pub fn usize_in(range: RangeInclusive<u64>) -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::<usize>::new().range(range)
}

/// A finite floating-point number in `range` (NaN and infinities refused).
pub fn float_in<T>(range: RangeInclusive<T>) -> FloatIn<T> {
    let (min, max) = range.into_inner();
    FloatIn { min, max }
}

/// A byte count in `range`: a plain number or one with a binary suffix
/// (`k`/`KiB`, `m`/`MiB`, `g`/`GiB`), e.g. `256MiB`.
pub fn bytes_in(range: RangeInclusive<u64>) -> BytesIn {
    let (min, max) = range.into_inner();
    BytesIn { min, max }
}

/// A duration given in seconds (fractions allowed), in `range` seconds.
pub fn seconds_in(
    range: RangeInclusive<f64>,
) -> clap::builder::MapValueParser<FloatIn<f64>, fn(f64) -> Duration> {
    float_in(range).map(Duration::from_secs_f64 as fn(f64) -> Duration)
}

/// A CPU number, 0..=4095, that is online on this machine: `--cpu 5` on a
/// 2-CPU host is refused while parsing ("CPU 5 is not online (online
/// CPUs: 0-1)") rather than failing later as "Invalid argument" from
/// sched_setaffinity, or as a warning.
pub fn online_cpu() -> OnlineCpu {
    OnlineCpu
}

/// Parser returned by [`online_cpu`].
#[derive(Debug, Clone, Copy)]
pub struct OnlineCpu;

impl TypedValueParser for OnlineCpu {
    type Value = usize;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<usize, clap::Error> {
        let cpu = usize_in(0..=4095).parse_ref(cmd, arg, value)?;
        let check = move |_: &str| -> Result<usize, String> {
            let path = "/sys/devices/system/cpu/online";
            // Where the kernel does not say, the pinning itself will.
            let Ok(text) = std::fs::read_to_string(path) else {
                return Ok(cpu);
            };
            match crate::cmd::doctor::facts::parse_cpu_list(&text) {
                Some(online) if !online.contains(&cpu) => Err(format!(
                    "CPU {cpu} is not online (online CPUs: {})",
                    text.trim()
                )),
                _ => Ok(cpu),
            }
        };
        check.parse_ref(cmd, arg, value)
    }
}

/// Parser returned by [`float_in`].
#[derive(Debug, Clone, Copy)]
pub struct FloatIn<T> {
    min: T,
    max: T,
}

impl<T> TypedValueParser for FloatIn<T>
where
    T: FromStr + PartialOrd + Display + Copy + Send + Sync + 'static,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let (min, max) = (self.min, self.max);
        // A closure parser lets clap word the error ("invalid value 'V'
        // for '--ARG <ARG>': ...") like its own range checks.
        let check = move |s: &str| -> Result<T, String> {
            let v: T = s
                .trim()
                .parse()
                .map_err(|_| format!("{s:?} is not a number"))?;
            // NaN is in no range.
            if !(v >= min && v <= max) {
                return Err(format!("{s} is not in {min}..={max}"));
            }
            Ok(v)
        };
        check.parse_ref(cmd, arg, value)
    }
}

/// Parser returned by [`bytes_in`].
#[derive(Debug, Clone, Copy)]
pub struct BytesIn {
    min: u64,
    max: u64,
}

impl TypedValueParser for BytesIn {
    type Value = u64;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<u64, clap::Error> {
        let (min, max) = (self.min, self.max);
        let check = move |s: &str| -> Result<u64, String> {
            let v = parse_bytes(s)?;
            if !(min..=max).contains(&v) {
                return Err(format!(
                    "{s} is not in {}..={}",
                    show_bytes(min),
                    show_bytes(max)
                ));
            }
            Ok(v)
        };
        check.parse_ref(cmd, arg, value)
    }
}

/// Parses a byte count: a plain number, or with a binary suffix
/// `k`/`KiB`, `m`/`MiB`, `g`/`GiB`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("bad byte count {s:?}: expected e.g. 1048576, 64KiB, 1GiB"))?;
    let mult: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => KIB,
        "m" | "mib" => MIB,
        "g" | "gib" => GIB,
        _ => return Err(format!("bad byte unit in {s:?}: use k, m or g (binary)")),
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("byte count {s:?} overflows 64 bits"))
}

/// A byte count for people: `256MiB`, `1GiB`, or plain bytes when not a
/// whole number of KiB.
pub fn show_bytes(n: u64) -> String {
    for (unit, size) in [("GiB", GIB), ("MiB", MIB), ("KiB", KIB)] {
        if n >= size && n % size == 0 {
            return format!("{}{unit}", n / size);
        }
    }
    n.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Arg, Command};

    fn parse<P>(parser: P, value: &str) -> Result<P::Value, String>
    where
        P: TypedValueParser,
        P::Value: Clone + Send + Sync + 'static,
    {
        let matches = Command::new("t")
            .arg(Arg::new("n").long("n").value_parser(parser))
            .try_get_matches_from(["t".to_string(), format!("--n={value}")])
            .map_err(|e| e.to_string())?;
        Ok(matches.get_one::<P::Value>("n").cloned().expect("value"))
    }

    #[test]
    fn floats_outside_the_range_or_not_finite_are_refused_naming_the_range() {
        assert_eq!(parse(float_in(0.5..=2.0), "1.5"), Ok(1.5));
        let e = parse(float_in(0.5..=2.0), "3").expect_err("out of range");
        assert!(
            e.contains("'--n <n>'") && e.contains("3 is not in 0.5..=2"),
            "{e}"
        );
        for bad in ["NaN", "inf", "-inf", "x", ""] {
            assert!(parse(float_in(0.0f32..=1.0), bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn cpus_must_be_online() {
        assert_eq!(parse(online_cpu(), "0"), Ok(0));
        let e = parse(online_cpu(), "4095").expect_err("not online here");
        assert!(e.contains("CPU 4095 is not online (online CPUs: "), "{e}");
        assert!(parse(online_cpu(), "4096").is_err());
        assert!(parse(online_cpu(), "-1").is_err());
    }

    #[test]
    fn byte_counts_take_suffixes_and_stay_in_range() {
        assert_eq!(parse(bytes_in(1..=GIB), "256MiB"), Ok(256 * MIB));
        assert_eq!(parse(bytes_in(1..=GIB), "4k"), Ok(4096));
        let e = parse(bytes_in(MIB..=GIB), "2g").expect_err("too big");
        assert!(e.contains("not in 1MiB..=1GiB"), "{e}");
        assert!(parse(bytes_in(1..=u64::MAX), "18446744073709551615g").is_err());
        assert!(parse(bytes_in(1..=GIB), "12 parsecs").is_err());
        assert_eq!(show_bytes(1536), "1536");
        assert_eq!(show_bytes(3 * KIB), "3KiB");
    }
}

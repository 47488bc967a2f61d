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

/// A `usize` in `range` (clap ranges `usize` only through `u64`); a
/// negative number is refused by the range, as with [`u64_in`].
pub fn usize_in(
    range: RangeInclusive<u64>,
) -> clap::builder::MapValueParser<U64In, fn(u64) -> usize> {
    u64_in(range).map(saturating_usize as fn(u64) -> usize)
}

/// `v` as a `usize` (the ranges given fit one on every supported target).
fn saturating_usize(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// A `u64` in `range`, as clap's own range parser, except that a negative
/// number is refused by the range ("-5 is not in 0..=100") instead of
/// with "invalid digit found in string".
pub fn u64_in(range: RangeInclusive<u64>) -> U64In {
    let (min, max) = range.into_inner();
    U64In { min, max }
}

/// Parser returned by [`u64_in`].
#[derive(Debug, Clone, Copy)]
pub struct U64In {
    min: u64,
    max: u64,
}

impl TypedValueParser for U64In {
    type Value = u64;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<u64, clap::Error> {
        let (min, max) = (self.min, self.max);
        let negative = value
            .to_str()
            .is_some_and(|s| s.trim().starts_with('-') && s.trim().parse::<i128>().is_ok());
        if negative {
            let check = move |s: &str| -> Result<u64, String> {
                Err(format!("{} is not in {min}..={max}", s.trim()))
            };
            return check.parse_ref(cmd, arg, value);
        }
        RangedU64ValueParser::<u64>::new()
            .range(min..=max)
            .parse_ref(cmd, arg, value)
    }
}

/// A finite floating-point number in `range` (NaN and infinities refused).
pub fn float_in<T>(range: RangeInclusive<T>) -> Ranged<T>
where
    T: FromStr + PartialOrd + Display + Copy + Send + Sync + 'static,
{
    Ranged::new(range, parse_number::<T>, T::to_string, "")
}

/// `s` as a number of type `T`.
fn parse_number<T: FromStr>(s: &str) -> Result<T, String> {
    s.trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a number"))
}

/// A byte count in `range`: a plain number or one with a binary suffix
/// (`k`/`KiB`, `m`/`MiB`, `g`/`GiB`), e.g. `256MiB`.
pub fn bytes_in(range: RangeInclusive<u64>) -> Ranged<u64> {
    Ranged::new(range, parse_bytes, |n| show_bytes(*n), "")
}

/// Like [`bytes_in`], as a `usize` (a buffer size in memory).
pub fn bytes_usize_in(
    range: RangeInclusive<u64>,
) -> clap::builder::MapValueParser<Ranged<u64>, fn(u64) -> usize> {
    bytes_in(range).map(saturating_usize as fn(u64) -> usize)
}

/// A duration in `range` seconds, as a number of seconds (fractions
/// allowed) or with a unit ([`parse_seconds`]), as seconds.
pub fn secs_in(range: RangeInclusive<f64>) -> Ranged<f64> {
    Ranged::new(range, parse_seconds, f64::to_string, " seconds")
}

/// Like [`secs_in`], as a [`Duration`].
pub fn seconds_in(
    range: RangeInclusive<f64>,
) -> clap::builder::MapValueParser<Ranged<f64>, fn(f64) -> Duration> {
    secs_in(range).map(Duration::from_secs_f64 as fn(f64) -> Duration)
}

/// A value read by `parse` and refused unless it lies in `min..=max`
/// (NaN lies in no range), the range shown by `show` and followed by
/// `unit` in the error: the one shape of the number, size and duration
/// parsers here. Checked through a closure parser, so clap words the error
/// ("invalid value 'V' for '--ARG <ARG>': ...") like its own range checks.
#[derive(Debug, Clone, Copy)]
pub struct Ranged<T> {
    min: T,
    max: T,
    parse: fn(&str) -> Result<T, String>,
    show: fn(&T) -> String,
    unit: &'static str,
}

impl<T: Copy> Ranged<T> {
    fn new(
        range: RangeInclusive<T>,
        parse: fn(&str) -> Result<T, String>,
        show: fn(&T) -> String,
        unit: &'static str,
    ) -> Ranged<T> {
        let (min, max) = range.into_inner();
        Ranged {
            min,
            max,
            parse,
            show,
            unit,
        }
    }
}

impl<T> TypedValueParser for Ranged<T>
where
    T: PartialOrd + Copy + Send + Sync + 'static,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let Ranged {
            min,
            max,
            parse,
            show,
            unit,
        } = *self;
        let check = move |s: &str| -> Result<T, String> {
            let v = parse(s)?;
            if !(v >= min && v <= max) {
                return Err(format!(
                    "{s} is not in {}..={}{unit}",
                    show(&min),
                    show(&max)
                ));
            }
            Ok(v)
        };
        check.parse_ref(cmd, arg, value)
    }
}

/// Parses a duration into seconds: a plain number is seconds (`2.5`); a
/// number with a unit is `us` (microseconds), `ms`, `s`, `m` (minutes) or
/// `h` (`500ms`, `10s`, `2m`, `1.5h`).
pub fn parse_seconds(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num.parse().map_err(|_| {
        format!("{s:?} is not a duration: give seconds (2.5) or a number with us, ms, s, m or h")
    })?;
    let scale = match unit.trim() {
        "" | "s" => 1.0,
        "us" => 1e-6,
        "ms" => 1e-3,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        other => {
            return Err(format!(
                "unknown unit {other:?} in {s:?}: use us, ms, s, m or h"
            ))
        }
    };
    let v = n * scale;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("{s:?} is not a finite duration"))
    }
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
            match linerate_metrics::cpu::parse_cpu_list(&text) {
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

/// Parses a byte count: a plain number, or a number (fractions allowed)
/// with a unit. A single letter or an `iB` unit is binary (`k`/`KiB`,
/// `m`/`MiB`, `g`/`GiB`, `t`/`TiB`: 256k = 262144, 1.5GiB); a `B` unit
/// with a letter is decimal (`kB`, `MB`, `GB`, `TB`: 1GB = 10^9). The
/// result must be a whole number of bytes.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => KIB,
        "m" | "mib" => MIB,
        "g" | "gib" => GIB,
        "t" | "tib" => GIB << 10,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => {
            return Err(format!(
                "bad byte unit in {s:?}: use k, m, g, t or KiB, MiB, GiB, TiB (binary), kB, MB, GB, TB (decimal)"
            ))
        }
    };
    if let Ok(n) = num.parse::<u64>() {
        return n
            .checked_mul(mult)
            .ok_or_else(|| format!("byte count {s:?} overflows 64 bits"));
    }
    let x: f64 = num
        .parse()
        .map_err(|_| format!("bad byte count {s:?}: expected e.g. 1048576, 64KiB, 1.5GiB, 1GB"))?;
    let bytes = x * mult as f64;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(format!("byte count {s:?} overflows 64 bits"));
    }
    if bytes.fract() != 0.0 {
        return Err(format!("{s:?} is not a whole number of bytes ({bytes})"));
    }
    Ok(bytes as u64)
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
    fn negative_counts_are_refused_by_the_range() {
        assert_eq!(parse(u64_in(0..=100), "7"), Ok(7));
        let e = parse(u64_in(0..=100), "-5").expect_err("negative");
        assert!(e.contains("-5 is not in 0..=100"), "{e}");
        assert!(parse(u64_in(0..=100), "101").is_err());
        assert!(parse(u64_in(0..=100), "x").is_err());
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

    #[test]
    fn byte_counts_speak_one_dialect_binary_and_decimal() {
        assert_eq!(parse_bytes("256k"), Ok(256 * KIB));
        assert_eq!(parse_bytes("1.5GiB"), Ok(3 * GIB / 2));
        assert_eq!(parse_bytes("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_bytes("2 MB"), Ok(2_000_000));
        assert_eq!(parse_bytes("1TiB"), Ok(GIB << 10));
        let e = parse_bytes("1.3k").expect_err("a fraction of a byte");
        assert!(e.contains("whole number"), "{e}");
        assert!(parse_bytes("1e3").is_err());
        assert!(parse_bytes("99999999999999999999TB").is_err());
    }

    #[test]
    fn durations_take_seconds_or_a_unit() {
        assert_eq!(parse_seconds("2.5"), Ok(2.5));
        assert_eq!(parse_seconds("500ms"), Ok(0.5));
        assert_eq!(parse_seconds("10s"), Ok(10.0));
        assert_eq!(parse_seconds("2m"), Ok(120.0));
        assert_eq!(parse_seconds("1.5h"), Ok(5400.0));
        assert_eq!(parse_seconds("250us"), Ok(0.00025));
        assert!(parse_seconds("10 parsecs").is_err());
        assert!(parse_seconds("ms").is_err());
        let e = parse(secs_in(0.001..=60.0), "2h").expect_err("too long");
        assert!(e.contains("not in 0.001..=60 seconds"), "{e}");
        assert_eq!(
            parse(seconds_in(0.001..=60.0), "250ms"),
            Ok(Duration::from_millis(250))
        );
        assert!(parse(secs_in(0.0..=1.0), "-1s").is_err());
    }
}

//! sysfs CPU masks (`rps_cpus`, `smp_affinity`): hex in comma-separated
//! 32-bit groups, most significant first. Pure text, so the bed's spec can
//! check a CPU list without touching a namespace.

use crate::error::{Error, Result};

/// Highest CPU number accepted in a mask (exclusive).
pub const MAX_CPUS: usize = 1024;

/// Renders a CPU list as a sysfs cpumask: hex in comma-separated 32-bit
/// groups, most significant first (`[1]` -> `"2"`, `[0, 33]` ->
/// `"2,00000001"`).
pub fn cpu_mask(cpus: &[usize]) -> Result<String> {
    if cpus.is_empty() {
        return Err(Error::Spec("CPU list is empty".into()));
    }
    let mut words = [0u32; MAX_CPUS / 32];
    for &c in cpus {
        if c >= MAX_CPUS {
            return Err(Error::Spec(format!("CPU {c} out of range 0..{MAX_CPUS}")));
        }
        words[c / 32] |= 1 << (c % 32);
    }
    let top = words.iter().rposition(|w| *w != 0).unwrap_or(0);
    let mut s = format!("{:x}", words[top]);
    for w in words[..top].iter().rev() {
        s.push_str(&format!(",{w:08x}"));
    }
    Ok(s)
}

/// Parses a sysfs cpumask (`"00000002"`, `"0,00000003"`) into a CPU list.
pub fn parse_cpu_mask(mask: &str) -> Result<Vec<usize>> {
    let mut cpus = Vec::new();
    let groups: Vec<&str> = mask.trim().split(',').collect();
    for (i, g) in groups.iter().rev().enumerate() {
        let w =
            u32::from_str_radix(g, 16).map_err(|_| Error::Spec(format!("bad cpumask {mask:?}")))?;
        for bit in 0..32 {
            if w & (1 << bit) != 0 {
                cpus.push(i * 32 + bit);
            }
        }
    }
    Ok(cpus)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks() -> Result<()> {
        assert_eq!(cpu_mask(&[1])?, "2");
        assert_eq!(cpu_mask(&[0, 1])?, "3");
        assert_eq!(cpu_mask(&[0, 33])?, "2,00000001");
        assert_eq!(cpu_mask(&[64])?, "1,00000000,00000000");
        assert!(cpu_mask(&[]).is_err());
        assert!(cpu_mask(&[MAX_CPUS]).is_err());
        assert_eq!(parse_cpu_mask("00000002\n")?, vec![1]);
        assert_eq!(parse_cpu_mask("2,00000001")?, vec![0, 33]);
        assert_eq!(parse_cpu_mask("0")?, Vec::<usize>::new());
        assert!(parse_cpu_mask("xyz").is_err());
        for cpus in [vec![0], vec![5, 31, 32, 100]] {
            assert_eq!(parse_cpu_mask(&cpu_mask(&cpus)?)?, cpus);
        }
        Ok(())
    }
}

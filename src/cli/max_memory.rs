//! `--max-memory`, the memory bound of `run`, `check`, `emit`, `repro` and
//! `reduce`: its argument, the parser of sizes such as `512M`, and `apply`,
//! which hands the limit to the counting allocator (`counting_alloc.rs`
//! enforces it and says what it counts).
//!
//! The default, 4 GiB, leaves room for a function of a hundred thousand
//! statements through every stage (`docs/scaling.md` gives the peaks), so
//! that legitimate large inputs pass, and is a fraction of a developer
//! machine or CI runner, so that a runaway input (a construction whose
//! memory grows faster than linearly) stops with a message instead of
//! exhausting the machine.

use crate::counting_alloc;
use clap::Args;

/// The default limit, as `--help` shows it.
pub const DEFAULT_MAX_MEMORY: &str = "4G";

#[derive(Args, Debug)]
pub struct MaxMemoryArgs {
    /// Stop (exit code 5) when the heap would exceed this size: bytes, or a
    /// number with a K, M, G or T suffix (powers of 1024); `0` or `none`
    /// for no limit.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = DEFAULT_MAX_MEMORY)]
    pub max_memory: u64,
}

impl MaxMemoryArgs {
    /// Starts enforcing the limit (for the rest of the process).
    pub fn apply(&self) {
        counting_alloc::set_limit(self.max_memory);
    }
}

/// Parses a size: `none`, or digits with an optional suffix `K`, `M`, `G`
/// or `T` (case-insensitive, powers of 1024, optionally followed by `iB` or
/// `B`). `0` and `none` both mean no limit.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("none") {
        return Ok(0);
    }
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(split);
    let bad = || format!("`{s}` is not a size (examples: 512M, 4G, 0 or none for no limit)");
    if digits.is_empty() {
        return Err(bad());
    }
    let unit = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 1u64,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return Err(bad()),
    };
    let n: u64 = digits.parse().map_err(|_| bad())?;
    n.checked_mul(unit).ok_or_else(|| format!("`{s}` is too large"))
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_parse_in_powers_of_1024() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("4gib"), Ok(4 << 30));
        assert_eq!(parse_size("100k"), Ok(100 << 10));
        assert_eq!(parse_size("12345"), Ok(12345));
        assert_eq!(parse_size("0"), Ok(0));
        assert_eq!(parse_size("none"), Ok(0));
        for bad in ["", "G", "4X", "-1", "1.5G", "4 G", "99999999999T"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}

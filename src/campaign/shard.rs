//! `ssaref fuzz --shard I/N`: one campaign split into N that together run
//! what it would, so that the tasks of an array job (a CI matrix, a Slurm
//! `--array`) each run one shard.
//!
//! Program `i` of an unsharded campaign started at seed `S` is the program
//! of seed `S + i`. Shard `I/N` (shards numbered from 0, as cargo-mutants
//! numbers them) takes the programs whose `i` is `I` modulo `N`: its
//! program `j` is program `I + j N` of the unsharded campaign, of seed
//! `S + I + j N` (wrapping). Shards are therefore disjoint, their union
//! over `I` is the unsharded campaign, and shard `I/N` with `--count C` is
//! exactly its share of an unsharded campaign with `--count N C`. The
//! seeds are interleaved rather than cut into blocks so that shards
//! stopped by a time limit, each after a different number of programs,
//! still cover a prefix of the unsharded campaign up to the slowest
//! shard's progress.

use std::fmt;
use std::str::FromStr;

/// Shard `index` of `count` (`0 <= index < count`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Shard {
    index: u64,
    count: u64,
}

/// Why there is no such shard, or why a text names none.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ShardError {
    /// Zero shards.
    NoShards,
    /// Shard `index` of `count`, with `index >= count`.
    OutOfRange { index: u64, count: u64 },
    /// The text is not of the form `I/N`.
    NotAFraction(String),
    /// The part `part` of `text`, the `what`, is not a non-negative integer.
    NotANumber { text: String, what: &'static str, part: String },
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShardError::NoShards => f.write_str("the number of shards must be at least 1"),
            ShardError::OutOfRange { index, count } => write!(
                f,
                "shard {index} of {count} does not exist: shards are numbered 0 to {} (`--shard I/N` with I < N)",
                count - 1
            ),
            ShardError::NotAFraction(s) => write!(f, "`{s}` is not of the form I/N (for example 0/4)"),
            ShardError::NotANumber { text, what, part } => {
                write!(f, "`{text}`: the {what} `{part}` is not a non-negative integer")
            }
        }
    }
}

impl std::error::Error for ShardError {}

impl Shard {
    /// The whole campaign: shard 0 of 1.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Shard `index` of `count`, or why there is none.
    pub fn new(index: u64, count: u64) -> Result<Shard, ShardError> {
        if count == 0 {
            return Err(ShardError::NoShards);
        }
        if index >= count {
            return Err(ShardError::OutOfRange { index, count });
        }
        Ok(Shard { index, count })
    }

    /// This shard's number, from 0.
    pub fn index(self) -> u64 {
        self.index
    }

    /// The number of shards.
    pub fn count(self) -> u64 {
        self.count
    }

    /// The position, in the unsharded campaign, of this shard's program
    /// `j`: `index + j * count`.
    pub fn global_index(self, j: u64) -> u64 {
        self.index.wrapping_add(j.wrapping_mul(self.count))
    }

    /// The seed of this shard's program `j` in a campaign started at
    /// `start`.
    pub fn seed(self, start: u64, j: u64) -> u64 {
        start.wrapping_add(self.global_index(j))
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    /// `I/N`, two decimal numbers.
    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let (i, n) = s.split_once('/').ok_or_else(|| ShardError::NotAFraction(s.to_string()))?;
        let number = |t: &str, what: &'static str| {
            t.trim().parse::<u64>().map_err(|_| ShardError::NotANumber {
                text: s.to_string(),
                what,
                part: t.to_string(),
            })
        };
        Shard::new(number(i, "shard number")?, number(n, "number of shards")?)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_reject_what_does_not_exist() {
        assert_eq!("1/3".parse::<Shard>(), Ok(Shard { index: 1, count: 3 }));
        assert_eq!("0/1".parse::<Shard>(), Ok(Shard::WHOLE));
        assert_eq!(Shard::new(2, 5).expect("exists").to_string(), "2/5");
        for bad in ["3/2", "2/2", "0/0", "x", "1", "1/", "/2", "-1/2", "1/2/3", "a/b"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        let e = "3/2".parse::<Shard>().unwrap_err();
        assert_eq!(e, ShardError::OutOfRange { index: 3, count: 2 });
        assert!(e.to_string().contains("numbered 0 to 1"), "{e}");
    }

    #[test]
    fn the_whole_campaign_is_seed_start_plus_i() {
        for j in 0..10 {
            assert_eq!(Shard::WHOLE.seed(100, j), 100 + j);
        }
        let s = Shard::new(2, 4).expect("exists");
        assert_eq!((0..3).map(|j| s.seed(100, j)).collect::<Vec<_>>(), [102, 106, 110]);
        // Seeds wrap like those of an unsharded campaign.
        assert_eq!(s.seed(u64::MAX, 0), 1);
    }
}

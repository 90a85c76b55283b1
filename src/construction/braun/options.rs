//! The switches of Braun et al.'s construction ("Simple and Efficient
//! Construction of Static Single Assignment Form", CC 2013): the variants of
//! §3.2 (Algorithm 5) and §3.3 (the marker algorithm), the witness cache and
//! the on-the-fly optimizations of §3.1, and the counters of one run.

/// Which variant of the construction runs and which on-the-fly
/// optimizations it performs. `Default` turns everything on.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct BraunOptions {
    /// The marker algorithm of §3.3: mark a block instead of placing an
    /// operandless phi before recursing, and place a phi only on a cycle or
    /// when different definitions meet.
    pub marker: bool,
    /// Algorithm 5 (§3.2): remove redundant phi SCCs when the function is
    /// finished. Needed for minimality on irreducible control flow.
    pub remove_redundant_sccs: bool,
    /// The witness cache of §3.1 for repeated triviality checks.
    pub witness_cache: bool,
    /// Evaluate operations whose operands are constants (never one that
    /// would trap), and branches on constants.
    pub fold_constants: bool,
    /// Peephole rules such as `x - x = 0`, `x * 1 = x`, `x & 0 = 0`.
    pub simplify_arithmetic: bool,
    /// Reuse an equal pure operation of the same block (local value numbering).
    pub cse: bool,
    /// `x = y` makes `x` name `y`'s value instead of a `copy`.
    pub copy_propagation: bool,
}

impl Default for BraunOptions {
    fn default() -> Self {
        BraunOptions::all_on()
    }
}

impl BraunOptions {
    /// Every optimization and Algorithm 5 on, phi variant (not marker).
    pub fn all_on() -> Self {
        BraunOptions {
            marker: false,
            remove_redundant_sccs: true,
            witness_cache: true,
            fold_constants: true,
            simplify_arithmetic: true,
            cse: true,
            copy_propagation: true,
        }
    }

    /// The plain algorithm of §2 plus Algorithm 5: no on-the-fly
    /// optimization. Its phi count equals Cytron et al.'s on reducible CFGs.
    pub fn plain() -> Self {
        BraunOptions {
            marker: false,
            remove_redundant_sccs: true,
            witness_cache: true,
            fold_constants: false,
            simplify_arithmetic: false,
            cse: false,
            copy_propagation: false,
        }
    }

    /// True when no on-the-fly optimization is on.
    pub fn no_optimizations(&self) -> bool {
        !(self.fold_constants || self.simplify_arithmetic || self.cse || self.copy_propagation)
    }

    /// Every combination of the seven switches (128 option sets).
    pub fn every_combination() -> Vec<BraunOptions> {
        (0u32..128)
            .map(|m| BraunOptions {
                marker: m & 1 != 0,
                remove_redundant_sccs: m & 2 != 0,
                witness_cache: m & 4 != 0,
                fold_constants: m & 8 != 0,
                simplify_arithmetic: m & 16 != 0,
                cse: m & 32 != 0,
                copy_propagation: m & 64 != 0,
            })
            .collect()
    }

    /// A short name listing the switches that are on, e.g. `marker+fold`.
    pub fn describe(&self) -> String {
        let mut parts = vec![if self.marker { "marker" } else { "phi" }];
        let flags = [
            (self.remove_redundant_sccs, "scc"),
            (self.witness_cache, "witness"),
            (self.fold_constants, "fold"),
            (self.simplify_arithmetic, "simplify"),
            (self.cse, "cse"),
            (self.copy_propagation, "copyprop"),
        ];
        parts.extend(flags.iter().filter(|(on, _)| *on).map(|&(_, n)| n));
        parts.join("+")
    }

    /// The options that [`BraunOptions::describe`] names (`phi` or
    /// `marker`, then the switches that are on); `None` for anything else.
    pub fn from_description(s: &str) -> Option<BraunOptions> {
        let mut parts = s.split('+');
        let marker = match parts.next()? {
            "phi" => false,
            "marker" => true,
            _ => return None,
        };
        let mut o = BraunOptions {
            marker,
            remove_redundant_sccs: false,
            witness_cache: false,
            fold_constants: false,
            simplify_arithmetic: false,
            cse: false,
            copy_propagation: false,
        };
        for part in parts {
            let switch = match part {
                "scc" => &mut o.remove_redundant_sccs,
                "witness" => &mut o.witness_cache,
                "fold" => &mut o.fold_constants,
                "simplify" => &mut o.simplify_arithmetic,
                "cse" => &mut o.cse,
                "copyprop" => &mut o.copy_propagation,
                _ => return None,
            };
            *switch = true;
        }
        Some(o)
    }
}

/// When Algorithm 5 runs, if `BraunOptions::remove_redundant_sccs` is on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Algorithm5 {
    /// Only when the function's CFG is irreducible or an on-the-fly
    /// optimization shared a value between bindings (`BraunStats::scc_needed`):
    /// elsewhere it provably removes nothing.
    WhereItCanAct,
    /// On every function, as printed in the paper (for the tests that
    /// check that the gate loses nothing).
    Always,
}

/// Counters of one construction, for statistics and tests.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct BraunStats {
    /// Phis created, temporary ones included.
    pub phis_created: usize,
    /// Phis removed as trivial (Alg. 3).
    pub trivial_removed: usize,
    /// Phis removed as members of redundant SCCs (Alg. 5).
    pub scc_removed: usize,
    /// Phis removed because nothing used them any more.
    pub dead_removed: usize,
    /// Phis given to Tarjan's search by Alg. 5, over every level of its
    /// recursion on inner phi sets: its cost, which is (phis) × (levels),
    /// quadratic when each level peels only a few phis off one SCC, as on
    /// deeply nested loops.
    pub scc_searched: usize,
    /// Triviality checks answered by the witness cache alone.
    pub witness_hits: usize,
    /// Whether Algorithm 5 could remove a phi of this function: some phi
    /// has a phi operand, and the CFG is irreducible or an on-the-fly
    /// optimization bound a variable to a phi or to a value already bound.
    /// When false, the construction skips Algorithm 5 (unless told to run
    /// it always), as it cannot act.
    pub scc_needed: bool,
}

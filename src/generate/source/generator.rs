//! The generator's state: [`Generator`] holds the source of choices, the
//! configuration, the features this program uses, and the variables and
//! labels made so far. Its methods here pick variables and labels; the
//! expressions are made in `expr.rs`, the statements and shapes in
//! `stmt.rs`.

use super::entropy::Entropy;
use super::source_config::{Feature, GenConfig};

/// How many template variables later statements may read.
const MAX_READABLE_EXTRA: usize = 12;

/// A function the generator may call: its name and number of parameters
/// (the depth included).
#[derive(Clone, Debug)]
pub(super) struct Callee {
    pub(super) name: String,
    pub(super) arity: usize,
}

/// The generator: the choices, the configuration, and what it has made so
/// far.
pub(super) struct Generator<'a, E: Entropy> {
    pub(super) e: &'a mut E,
    pub(super) cfg: &'a GenConfig,
    /// The features this program uses (after swarm selection).
    on: [bool; Feature::COUNT],
    pub(super) params: Vec<String>,
    /// Variables ordinary statements assign.
    pub(super) pool: Vec<String>,
    /// Variables of shapes that later statements may read (not assign).
    extra: Vec<String>,
    /// Statements still to generate.
    pub(super) remaining: usize,
    /// Statements generated so far.
    pub(super) produced: usize,
    next_label: usize,
    next_var: usize,
    /// Number of enclosing `while`s of the statement being generated.
    pub(super) loop_depth: usize,
    /// Greater than 0 while filling the inside of a shape, where a bare
    /// `return`, `break` or `continue` would cut the shape.
    pub(super) in_shape: usize,
    /// This program's divisions may trap.
    pub(super) traps: bool,
    /// `acc` collects values (when `out` is off).
    pub(super) acc_used: bool,
    /// The functions this one may call (none without
    /// [`GenConfig::calls`]).
    pub(super) callees: Vec<Callee>,
    /// This function is a helper, with the depth parameter
    /// (`calls.rs`).
    pub(super) in_helper: bool,
}

impl<'a, E: Entropy> Generator<'a, E> {
    pub(super) fn new(e: &'a mut E, cfg: &'a GenConfig) -> Self {
        // Swarm testing: a coin per feature and program, all from one draw
        // (so that a fuzzer's first 8 bytes choose the subset).
        let coins = if cfg.swarm { e.bits() } else { u64::MAX };
        let mut on = [false; Feature::COUNT];
        for f in Feature::ALL {
            on[f.index()] = cfg.weight(f) > 0 && coins >> f.index() & 1 == 1;
        }
        // Whether this program may trap is drawn apart from the swarm
        // coins, so that the trap rate does not depend on swarm testing.
        let traps = cfg.weight(Feature::Trapping) > 0 && e.chance(cfg.trap_percent);
        if traps {
            on[Feature::Trapping.index()] = true;
        }
        Generator {
            e,
            cfg,
            on,
            params: Vec::new(),
            pool: (0..cfg.pool_vars.max(1)).map(|i| format!("v{i}")).collect(),
            extra: Vec::new(),
            remaining: cfg.size,
            produced: 0,
            next_label: 0,
            next_var: 0,
            loop_depth: 0,
            in_shape: 0,
            traps,
            acc_used: false,
            callees: Vec::new(),
            in_helper: false,
        }
    }

    pub(super) fn on(&self, f: Feature) -> bool {
        self.on[f.index()]
    }

    /// The weight of `f` for this program: 0 when swarm left it out.
    pub(super) fn w(&self, f: Feature) -> u32 {
        if self.on(f) {
            self.cfg.weight(f)
        } else {
            0
        }
    }

    pub(super) fn fresh_label(&mut self) -> String {
        let l = format!("L{}", self.next_label);
        self.next_label += 1;
        l
    }

    /// A fresh variable for a shape; later statements may read it.
    pub(super) fn fresh_var(&mut self) -> String {
        let v = format!("t{}", self.next_var);
        self.next_var += 1;
        self.extra.push(v.clone());
        if self.extra.len() > MAX_READABLE_EXTRA {
            self.extra.remove(0);
        }
        v
    }

    pub(super) fn pool_var(&mut self) -> String {
        let i = self.e.below(self.pool.len() as u64) as usize;
        self.pool[i].clone()
    }

    /// Any variable statements may read: a parameter, a pool variable, or a
    /// variable of an earlier shape.
    pub(super) fn readable_var(&mut self) -> String {
        let n = self.params.len() + self.pool.len() + self.extra.len();
        let i = self.e.below(n as u64) as usize;
        if i < self.params.len() {
            self.params[i].clone()
        } else if i < self.params.len() + self.pool.len() {
            self.pool[i - self.params.len()].clone()
        } else {
            self.extra[i - self.params.len() - self.pool.len()].clone()
        }
    }
}

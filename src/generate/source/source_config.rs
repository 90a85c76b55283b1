//! The knobs of the generator: the [`Feature`]s it can put in a program,
//! their weights and the other limits in [`GenConfig`], and the named
//! configurations of [`Shape`] (swarm testing among them).

/// A shape the generator can put in a program. Each has a weight in
/// [`GenConfig`]; 0 turns it off.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Feature {
    /// `x = y;`, which copy propagation turns into a second name for a value.
    Copies,
    /// `mem[a] = v;` statements and `mem[a]` loads.
    Mem,
    /// `out e;` statements.
    Out,
    /// `if` statements.
    If,
    /// An `else` part; its weight is the percentage of `if`s that get one.
    Else,
    /// `while` loops.
    While,
    /// `break;` (usually under an `if`).
    Break,
    /// `continue;` (usually under an `if`).
    Continue,
    /// `return e;` before the end (usually under an `if`).
    Return,
    /// A bare `{ .. }` block.
    NestedBlock,
    /// `&&` and `||` in expressions and conditions.
    Logical,
    /// `/` and `%`; whether they may trap is [`GenConfig::trap_percent`].
    Trapping,
    /// Forward `goto`s, `goto`s out of loops, and single-entry `goto` loops.
    Goto,
    /// A cycle of labels with two entries (irreducible).
    Irreducible,
    /// A `goto` into the body of a `while` (a second loop entry).
    GotoIntoLoop,
    /// A `goto` from outside, forward or backward, to a label anywhere
    /// inside an `if` branch, an `else` branch, a `while` body or a bare
    /// block (`region_jumps.rs`).
    RegionJump,
    /// Code after `return`, `goto`, `break` or `continue`.
    UnreachableCode,
    /// A cycle that no path from the entry reaches.
    UnreachableCycle,
    /// Two loop-carried values exchanged (the swap problem).
    Swap,
    /// A loop closed by a conditional branch whose pre-back-edge value is
    /// used after the loop (the lost-copy problem).
    LostCopy,
    /// `w = v; if (u) { w = u; }`: the branch on `u` and the phi merging `u`
    /// (Boissinot et al., Fig. 1).
    BranchUse,
    /// Three or more loop-carried values rotated.
    Rotation,
    /// One value assigned to several variables that meet in phis, or a
    /// chain of copies of one value live across a join where some of them
    /// change.
    FanOut,
    /// Many values live at once across a loop and a branch.
    Pressure,
    /// Data flow through memory: two loads of one address (or of two
    /// addresses that alias, `mem[a]` and `mem[a + 4096]`) with a store to
    /// it between them, whose values meet in one phi, at the join of an
    /// `if` or round a loop. Only in programs that have
    /// [`Feature::Mem`].
    MemWeb,
}

impl Feature {
    /// Every feature, in declaration order.
    pub const ALL: [Feature; 25] = [
        Feature::Copies,
        Feature::Mem,
        Feature::Out,
        Feature::If,
        Feature::Else,
        Feature::While,
        Feature::Break,
        Feature::Continue,
        Feature::Return,
        Feature::NestedBlock,
        Feature::Logical,
        Feature::Trapping,
        Feature::Goto,
        Feature::Irreducible,
        Feature::GotoIntoLoop,
        Feature::UnreachableCode,
        Feature::UnreachableCycle,
        Feature::Swap,
        Feature::LostCopy,
        Feature::BranchUse,
        Feature::Rotation,
        Feature::FanOut,
        Feature::Pressure,
        Feature::MemWeb,
        Feature::RegionJump,
    ];

    /// Number of features.
    pub const COUNT: usize = Feature::ALL.len();

    /// A short lower-case name, e.g. `lost-copy`.
    pub fn name(self) -> &'static str {
        match self {
            Feature::Copies => "copies",
            Feature::Mem => "mem",
            Feature::Out => "out",
            Feature::If => "if",
            Feature::Else => "else",
            Feature::While => "while",
            Feature::Break => "break",
            Feature::Continue => "continue",
            Feature::Return => "return",
            Feature::NestedBlock => "block",
            Feature::Logical => "logical",
            Feature::Trapping => "trapping",
            Feature::Goto => "goto",
            Feature::Irreducible => "irreducible",
            Feature::GotoIntoLoop => "goto-into-loop",
            Feature::UnreachableCode => "unreachable-code",
            Feature::UnreachableCycle => "unreachable-cycle",
            Feature::Swap => "swap",
            Feature::LostCopy => "lost-copy",
            Feature::BranchUse => "branch-use",
            Feature::Rotation => "rotation",
            Feature::FanOut => "fan-out",
            Feature::Pressure => "pressure",
            Feature::MemWeb => "mem-web",
            Feature::RegionJump => "goto-into-region",
        }
    }

    pub(super) fn index(self) -> usize {
        self as usize
    }
}

/// The knobs of the generator. `Default` is [`Shape::Swarm`].
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct GenConfig {
    /// Roughly how many statements `main` gets (nested ones included).
    pub size: usize,
    /// How deep statements nest (blocks inside blocks).
    pub max_nesting: usize,
    /// How deep an expression tree grows before the operands of a safe
    /// divisor (at most 2 more).
    pub max_expr_depth: usize,
    /// The most parameters `main` gets (at least 0).
    pub max_params: usize,
    /// Ordinary variables (`v0`, `v1`, ...) that statements assign.
    pub pool_vars: usize,
    /// The most trips round loops a run may take.
    pub budget: u64,
    /// The number of interpreter steps a run should stay below; the budget
    /// of a program is lowered so that `budget * 2 * cost` stays below this,
    /// where `cost` is its static size in statements and expression nodes.
    pub step_target: u64,
    /// Percentage of programs whose divisions may trap (in those, the
    /// divisions are on whatever swarm testing says). About a third of them
    /// do trap.
    pub trap_percent: u64,
    /// The most values the register-pressure shape keeps live (at least 6).
    pub pressure_values: usize,
    /// The longest rotation (at least 3).
    pub max_rotation: usize,
    /// Swarm testing: each program keeps each enabled feature with
    /// probability 1/2 (Groce et al., ISSTA 2012).
    pub swarm: bool,
    /// The weight of each feature (see [`GenConfig::weight`]).
    pub weights: Weights,
    /// Programs of several functions that call each other (`calls.rs`);
    /// off by default.
    pub calls: bool,
}

/// A weight per [`Feature`], indexed by the feature.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Weights([u32; Feature::COUNT]);

impl std::ops::Index<Feature> for Weights {
    type Output = u32;
    fn index(&self, f: Feature) -> &u32 {
        &self.0[f.index()]
    }
}

impl std::ops::IndexMut<Feature> for Weights {
    fn index_mut(&mut self, f: Feature) -> &mut u32 {
        &mut self.0[f.index()]
    }
}

impl Default for GenConfig {
    fn default() -> Self {
        Shape::Swarm.config()
    }
}

impl GenConfig {
    /// The weight of a feature: for statement kinds and shapes, its relative
    /// frequency among the statements the generator can pick at a given
    /// point (a plain assignment has weight 30); for [`Feature::Else`], the
    /// percentage of `if`s with an `else`; for [`Feature::Logical`],
    /// [`Feature::Trapping`] and the loads of [`Feature::Mem`], the relative
    /// frequency among inner expression nodes (other binary operators have
    /// weight 20). 0 turns the feature off.
    pub fn weight(&self, f: Feature) -> u32 {
        self.weights[f]
    }

    /// Sets the weight of a feature (see [`GenConfig::weight`]).
    pub fn set_weight(&mut self, f: Feature, w: u32) {
        self.weights[f] = w;
    }

    /// This configuration with one weight changed.
    pub fn with(mut self, f: Feature, w: u32) -> Self {
        self.set_weight(f, w);
        self
    }

    /// This configuration with every feature not in `keep` turned off.
    pub fn only(mut self, keep: &[Feature]) -> Self {
        for f in Feature::ALL {
            if !keep.contains(&f) {
                self.set_weight(f, 0);
            }
        }
        self
    }

    /// The default weights (see [`GenConfig::weight`]).
    fn default_weights() -> Weights {
        let mut w = Weights([0; Feature::COUNT]);
        for f in Feature::ALL {
            w[f] = match f {
                Feature::Copies => 8,
                Feature::Mem => 5,
                Feature::Out => 6,
                Feature::If => 10,
                Feature::Else => 50,
                Feature::While => 6,
                Feature::Break => 3,
                Feature::Continue => 3,
                Feature::Return => 2,
                Feature::NestedBlock => 2,
                Feature::Logical => 3,
                Feature::Trapping => 3,
                Feature::Goto => 3,
                Feature::Irreducible => 3,
                Feature::GotoIntoLoop => 2,
                Feature::UnreachableCode => 2,
                Feature::UnreachableCycle => 2,
                Feature::Swap => 3,
                Feature::LostCopy => 3,
                Feature::BranchUse => 3,
                Feature::Rotation => 2,
                Feature::FanOut => 3,
                Feature::Pressure => 1,
                Feature::MemWeb => 3,
                Feature::RegionJump => 8,
            };
        }
        w
    }
}

/// Named configurations, so that a test or a command line can ask for a
/// kind of program.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Shape {
    /// Every feature enabled, swarm testing on: the default.
    Swarm,
    /// Every feature in every program (swarm testing off).
    Everything,
    /// Structured code only: no `goto`, no label.
    Structured,
    /// Mostly labels and `goto`: irreducible loops, unreachable cycles.
    Gotos,
    /// Mostly the out-of-SSA situations (swap, rotation, lost copy,
    /// branch-use, fan-out, memory webs).
    Patterns,
    /// Mostly register pressure, with bigger programs.
    Pressure,
}

impl Shape {
    /// Every shape.
    pub const ALL: [Shape; 6] =
        [Shape::Swarm, Shape::Everything, Shape::Structured, Shape::Gotos, Shape::Patterns, Shape::Pressure];

    /// The name `ssaref gen --shape` takes.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Swarm => "swarm",
            Shape::Everything => "everything",
            Shape::Structured => "structured",
            Shape::Gotos => "gotos",
            Shape::Patterns => "patterns",
            Shape::Pressure => "pressure",
        }
    }

    /// The shape of a name, if any.
    pub fn from_name(name: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The configuration of this shape.
    pub fn config(self) -> GenConfig {
        let base = GenConfig {
            size: 36,
            max_nesting: 4,
            max_expr_depth: 4,
            max_params: 3,
            pool_vars: 6,
            budget: 200,
            step_target: 200_000,
            trap_percent: 12,
            pressure_values: 16,
            max_rotation: 5,
            swarm: true,
            weights: GenConfig::default_weights(),
            calls: false,
        };
        match self {
            Shape::Swarm => base,
            Shape::Everything => GenConfig { swarm: false, ..base },
            Shape::Structured => base
                .with(Feature::Goto, 0)
                .with(Feature::Irreducible, 0)
                .with(Feature::GotoIntoLoop, 0)
                .with(Feature::UnreachableCycle, 0)
                .with(Feature::LostCopy, 0)
                .with(Feature::RegionJump, 0),
            Shape::Gotos => base
                .with(Feature::Goto, 10)
                .with(Feature::Irreducible, 10)
                .with(Feature::GotoIntoLoop, 8)
                .with(Feature::UnreachableCycle, 6)
                .with(Feature::UnreachableCode, 6)
                .with(Feature::RegionJump, 10),
            Shape::Patterns => base
                .with(Feature::Swap, 10)
                .with(Feature::Rotation, 8)
                .with(Feature::LostCopy, 10)
                .with(Feature::BranchUse, 10)
                .with(Feature::FanOut, 10)
                .with(Feature::MemWeb, 10),
            Shape::Pressure => GenConfig { size: 60, pressure_values: 28, ..base.with(Feature::Pressure, 10) },
        }
    }
}

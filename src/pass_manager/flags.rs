//! The check switch, as one value: [`Flags`], in the manner of Cranelift's
//! `settings::Flags` (`enable_verifier`).
//!
//! It is chosen once, at the top (the command line's `--no-check`, a
//! test, a measurement), and passed down: `pipeline::Config` holds it,
//! every `Backend` receives it, and each back end hands it to the pass
//! runner (`runner.rs`) that runs its passes. The runner is the one reader:
//! it runs a pass's checks only when the flags say so, and while it runs a
//! pass it makes the flags the pass's own (`self_checks.rs`), so that the
//! self-checks inside the pass (a recomputation compared with an
//! incremental structure, a sampled cross-check) follow the same value.
//!
//! What runs whatever the flags say is listed in ARCHITECTURE.md
//! ("Checks"): the SSA verifier on input that comes from outside (a `.ssa`
//! file), and, in the differential driver, ssaref's allocation checker and
//! the machine-code checker on every back end's output, which are the
//! oracle's own judges rather than a pass's checks.

/// The check switch (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flags {
    checks: bool,
}

impl Flags {
    /// Every check between passes and every pass's own self-checks on.
    pub const fn checked() -> Flags {
        Flags { checks: true }
    }

    /// No check: the passes alone, for timing them.
    pub const fn unchecked() -> Flags {
        Flags { checks: false }
    }

    /// Checks on or off.
    pub const fn with_checks(on: bool) -> Flags {
        Flags { checks: on }
    }

    /// The build's default: on when debug assertions are on (`cargo test`
    /// and the `release` profile), off otherwise (the `measure` profile).
    pub const fn build_default() -> Flags {
        Flags { checks: cfg!(debug_assertions) }
    }

    /// Whether checks run. Read by the pass runner and the pipeline only
    /// (`tests/suite/layout.rs` keeps it so).
    pub const fn checks(self) -> bool {
        self.checks
    }
}

/// `on` or `off`, as reports print the switch.
impl std::fmt::Display for Flags {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.checks { "on" } else { "off" })
    }
}

impl Default for Flags {
    fn default() -> Flags {
        Flags::build_default()
    }
}

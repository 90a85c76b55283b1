//! Production compilers as targets of the oracle: ssaref's programs
//! compiled by a compiler ssaref did not write, run natively, and compared
//! with what the oracle says they do.
//!
//! | file | holds |
//! |---|---|
//! | `target.rs` | the `Target` trait, its inputs, errors and verdicts |
//! | `registry.rs` | the targets by name |
//! | `native.rs` | the C harness every native target links with, the child process that runs it, the parser of what it prints |
//! | `llvm_ir.rs`, `llvm.rs` | SSA to LLVM IR (`.ll`); the `llvm-N` targets: `llc-N` with its option sets |
//! | `c_source.rs`, `gcc.rs` | source programs and SSA to C; the `gcc` and `clang` targets |
//! | `cranelift/` (feature `cranelift`) | source programs through `cranelift-frontend`, SSA as blocks with parameters, run under Unicorn |
//!
//! May import: `construction`, `differential` and everything below it
//! (the oracle is reached through `oracle::Oracle`).
//!
//! # The trait
//!
//! A `Target` has a name (`llvm`, `gcc`, ...) and offers option sets,
//! each a short, stable string (`O2,regalloc=pbqp,verify`) that a case
//! file records and a campaign rotates through. `Target::run_batch` runs
//! many `TargetCase`s under one option set with one tool invocation per
//! step (one module, one link, one process), so tool start-up does not
//! dominate, and gives one result per case: the `Outcome` or a
//! `TargetError`. `Target::export` writes one case in the target's own
//! format, ready to file upstream, with the expected outcome and the exact
//! commands.
//!
//! A case is a source program (each target decides how it enters:
//! through ssaref's SSA construction, or straight from the AST) or an
//! IR-level SSA module, and the arguments of `main` (missing ones are 0).
//!
//! # What is compared
//!
//! Everything the oracle's `Outcome` holds, so the comparison is plain
//! equality: the output trace (each `out` calls a harness function that
//! records the value), the end (the return value, or the trap
//! `divide-error`: every division and remainder is guarded so that a zero
//! divisor and `i64::MIN / -1` call a harness function that reports the
//! trap and abandons the program; no target ever executes a division that
//! traps in hardware), and the final contents of `mem`, a 4096-word array
//! of the harness, cleared before each program. A program whose oracle run
//! ends out of fuel is not run at all (`run_against_oracle`): it may not
//! terminate. The native run has a limit of CPU time instead, and a
//! wall-clock backstop whose end is inconclusive.
//!
//! # Errors
//!
//! `TargetError` separates what is a finding (the tool rejects or
//! crashes on a valid program: `TargetError::Compile`; the program
//! crashes: `TargetError::Crash`; it runs past its CPU-time limit (or,
//! in the emulator, its fuel) although the oracle says it ends:
//! `TargetError::Timeout`) from what is not (the tool is not installed,
//! an option set the target does not offer) and from what is inconclusive
//! (a limit of the harness: its trace is full, or the wall-clock backstop
//! ran out first on a loaded machine: `TargetError::WallClock`).

pub mod c_source;
#[cfg(feature = "cranelift")]
pub mod cranelift;
pub mod gcc;
pub mod llvm;
pub mod llvm_ir;
pub mod native;
pub mod registry;
pub mod target;

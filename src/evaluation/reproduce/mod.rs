//! `ssaref reproduce`: each paper's evaluation redone on ssaref, with the
//! paper's figures beside ours, written as one Markdown report with SVG
//! plots (docs/results/README.md, "Reproducing the papers' evaluations").
//!
//! One file per paper, each building its section from measurements:
//! - `braun.rs`: Braun et al. (CC 2013) §6, Tables 1–3 and the scaling plot;
//! - `boissinot.rs`: Boissinot et al. (CGO 2009) §III-E Fig. 5 and §IV-D
//!   (Figs. 6–7), the fast configuration against the Sreedhar III baselines;
//! - `pereira.rs`: Pereira's technical report §5, Table 1 and Fig. 9;
//! - `pereira_palsberg.rs`: Pereira and Palsberg (CC 2009) §6–§7, the
//!   memory-access reduction by optimization and SSA elimination's share
//!   of compile time.
//!
//! - `pereira_x86.rs`: Pereira's Table 1 and Fig. 9 counted in the final
//!   x86-64 code, and Fig. 9 as a weighted cost with its sensitivity;
//! - `spill_cause.rs`: why ssa-ra can execute more spill code than linear
//!   scan, and linear scan more moves (in Pereira's section).
//!
//! Below them `allocators.rs` (the allocators of Pereira's comparison and
//! their counts), `measure.rs` (workloads, scale, compile times, tables)
//! and `plots.rs` (SVG plots with `plotters`); above them `report.rs`,
//! which runs every section and writes the report. The command line
//! (`cli/reproduce.rs`) loads the corpus, provides the peak-memory probe
//! and the header (commit, machine), and writes the files.

pub mod allocators;
pub mod boissinot;
pub mod braun;
pub mod measure;
pub mod pereira;
pub mod pereira_palsberg;
pub mod pereira_x86;
pub mod plots;
pub mod report;
pub mod spill_cause;

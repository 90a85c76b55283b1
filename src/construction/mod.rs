//! SSA construction. Start here: `braun/textbook.rs` is Braun, Buchwald,
//! Hack, Leißa, Mallon and Zwinkau, "Simple and Efficient Construction of
//! Static Single Assignment Form" (CC 2013), Algorithms 1 to 5, as printed
//! and annotated line by line.
//!
//! Around it, `braun/` is the fast builder that the pipeline uses, straight
//! from the AST with the on-the-fly optimizations of §3.1 (constant folding
//! in `fold.rs`), checked against the textbook by
//! `tests/suite/braun_textbook.rs`. `cytron.rs` is Cytron et al.'s
//! construction (TOPLAS 1991) on the variable CFG of `cfg_lowering.rs`, the
//! reference for minimality.
//!
//! May import: the data types, `analysis` and `frontend`. Never `checkers`
//! (which check this folder's output) nor anything above.

pub mod braun;
pub mod cfg_lowering;
pub mod cytron;
pub mod fold;

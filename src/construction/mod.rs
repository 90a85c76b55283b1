//! SSA construction: Braun et al. (CC 2013) straight from the AST, with
//! constant folding for its on-the-fly optimizations, and Cytron et al.
//! (TOPLAS 1991) on a variable CFG as the reference for minimality.
//!
//! Start here: `braun/textbook.rs` is Braun, Buchwald, Hack, Leißa, Mallon
//! and Zwinkau, "Simple and Efficient Construction of Static Single
//! Assignment Form" (CC 2013), Algorithms 1 to 5, as printed and annotated
//! line by line. `braun/` around it is the fast builder that the pipeline
//! uses, checked against the textbook by `tests/suite/braun_textbook.rs`;
//! `cytron.rs` (with `cfg_lowering.rs`) is the classic construction on a
//! CFG, and `fold.rs` the operator evaluation of the on-the-fly
//! optimizations.
//!
//! May import: the data types, `analysis` and `frontend`. Never `checkers`
//! (which check this folder's output) nor anything above.

pub mod braun;
pub mod cfg_lowering;
pub mod cytron;
pub mod fold;

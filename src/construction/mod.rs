//! SSA construction: Braun et al. (CC 2013) straight from the AST, with
//! constant folding for its on-the-fly optimizations, and Cytron et al.
//! (TOPLAS 1991) on a variable CFG as the reference for minimality.
//!
//! May import: the data types, `analysis` and `frontend`. Never `checkers`
//! (which check this folder's output) nor anything above.

pub mod braun;
pub mod cfg_lowering;
pub mod cytron;
pub mod fold;

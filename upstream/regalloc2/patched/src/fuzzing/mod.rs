/*
 * Released under the terms of the Apache 2.0 license with LLVM
 * exception. See `LICENSE` for details.
 */

pub mod domtree;
pub mod fastalloc;
pub mod func;
pub mod ion;
pub mod moves;

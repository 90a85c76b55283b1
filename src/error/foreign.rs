//! A wrapper that gives an error type of another crate the equality that
//! `CheckError` derives.

use std::fmt;

/// An error of another crate (regalloc2's, iced-x86's assembler's). Those
/// error types implement neither `PartialEq` nor `Eq`; two of them are
/// equal here when their `Debug` texts are, which spell out every field.
#[derive(Clone, Debug)]
pub struct Foreign<T>(pub T);

impl<T: fmt::Debug> PartialEq for Foreign<T> {
    fn eq(&self, other: &Self) -> bool {
        format!("{:?}", self.0) == format!("{:?}", other.0)
    }
}

impl<T: fmt::Debug> Eq for Foreign<T> {}

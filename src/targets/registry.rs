//! The targets by name: `ssaref fuzz --target llvm,gcc` and the other
//! commands find them here. A target behind a Cargo feature adds its name
//! to [`names`] and its constructor to [`by_name`], each under
//! `#[cfg(feature = ...)]`.
//!
//! `llvm-N` names LLVM N for any `N` (`llc-N`, installed or not: running
//! one that is not installed is `TargetError::ToolMissing`); `llvm` is the
//! newest installed (`llvm::installed_versions`).

use crate::targets::gcc::CCompiler;
use crate::targets::llvm::Llvm;
use crate::targets::target::Target;
use std::sync::Arc;

/// The registered targets' names.
pub fn names() -> Vec<&'static str> {
    let mut names = vec!["llvm", "llvm-14", "llvm-19", "gcc", "clang"];
    #[cfg(feature = "cranelift")]
    names.push("cranelift");
    names.sort_unstable();
    names
}

/// The target named `name`, or `None`.
pub fn by_name(name: &str) -> Option<Arc<dyn Target>> {
    match name {
        "llvm" => Some(Arc::new(Llvm::default())),
        "gcc" => Some(Arc::new(CCompiler::gcc())),
        "clang" => Some(Arc::new(CCompiler::clang())),
        #[cfg(feature = "cranelift")]
        "cranelift" => Some(Arc::new(crate::targets::cranelift::cranelift_target::Cranelift::default())),
        _ => llvm_version(name).map(|major| Arc::new(Llvm::version(major)) as Arc<dyn Target>),
    }
}

/// The `N` of a name `llvm-N` (decimal digits only).
fn llvm_version(name: &str) -> Option<u32> {
    let digits = name.strip_prefix("llvm-")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// A name that is not one of the targets' ([`names`]).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct UnknownTarget {
    pub name: String,
}

impl std::fmt::Display for UnknownTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown target `{}` (targets: {})", self.name, names().join(", "))
    }
}

impl std::error::Error for UnknownTarget {}

/// Parses a comma-separated list of target names (`llvm,gcc`).
pub fn parse_list(text: &str) -> Result<Vec<Arc<dyn Target>>, UnknownTarget> {
    text.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| by_name(s.trim()).ok_or_else(|| UnknownTarget { name: s.trim().to_string() }))
        .collect()
}

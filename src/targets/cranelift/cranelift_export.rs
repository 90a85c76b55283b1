//! A failing case as a `.clif` file for Cranelift's own test runner
//! (`clif-util test FILE`): the settings and target of the option set, the
//! translated functions exactly as they were handed to Cranelift (`main`
//! first; their calls name each other), and a wrapper
//! `%run` that sets up the context block on its stack (`mem` and the trace
//! length zeroed, the fuel), calls `main` and returns its result, with a
//! `; run:` line giving the oracle's return value. The oracle's whole
//! outcome (trace, end, non-zero `mem`) and what Cranelift's code did are
//! in the comments at the top.

use super::cranelift_ops as ops;
use super::CraneliftOptions;
use crate::outcome::{End, Outcome};
use cranelift_codegen::ir::Function;
use std::fmt::Write as _;

/// The fuel the wrapper gives `main`.
const EXPORT_FUEL: u64 = 100_000_000;

/// The `.clif` text. `funcs` are the functions before compilation, `main`
/// first with `params` parameters; `expected` the oracle's outcome, `actual` a description of
/// what the compiled code did; `origin` where the case comes from.
pub fn export_clif(
    funcs: &[Function],
    params: usize,
    options: &CraneliftOptions,
    args: &[i64],
    expected: &Outcome,
    actual: &str,
    origin: &str,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "; {origin}");
    let _ = writeln!(s, "; cranelift-codegen {}, options {}", cranelift_version(), options.describe());
    let _ = writeln!(s, "; arguments: {args:?}");
    let _ = writeln!(s, "; expected (ssaref's oracle):");
    for line in expected.render_full().lines() {
        let _ = writeln!(s, ";     {line}");
    }
    let _ = writeln!(s, "; actual:");
    for line in actual.lines() {
        let _ = writeln!(s, ";     {line}");
    }
    let _ = writeln!(s, "; main's first parameter is the address of a context block: mem (4096 words) at 0,");
    let _ = writeln!(
        s,
        "; the trace length at {}, the fuel at {}, the trace words from {}.",
        ops::TRACE_LEN_OFFSET,
        ops::FUEL_OFFSET,
        ops::TRACE_OFFSET
    );
    let _ = writeln!(s, "test run");
    for (name, value) in options.settings() {
        let _ = writeln!(s, "set {name}={value}");
    }
    let cpu = if options.cpu == "baseline" { String::new() } else { format!(" {}", options.cpu) };
    let _ = writeln!(s, "target x86_64{cpu}\n");
    for func in funcs {
        let _ = writeln!(s, "{}", func.display());
    }
    let list = |n: usize, f: &dyn Fn(usize) -> String| (0..n).map(f).collect::<Vec<_>>().join(", ");
    let _ = writeln!(s, "function %run({}) -> i64 system_v {{", list(params, &|_| "i64".into()));
    let _ = writeln!(s, "    ss0 = explicit_slot {}, align = 16", ops::CONTEXT_BYTES);
    let _ = writeln!(s, "    fn0 = colocated %main({}) -> i64 system_v\n", list(params + 1, &|_| "i64".into()));
    let p = params;
    let _ = writeln!(s, "block0({}):", list(params, &|i| format!("v{i}: i64")));
    let _ = writeln!(s, "    v{} = stack_addr.i64 ss0", p);
    let _ = writeln!(s, "    v{} = iconst.i64 0", p + 1);
    let _ = writeln!(s, "    jump block1(v{})\n", p + 1);
    let _ = writeln!(s, "block1(v{}: i64):", p + 2);
    let _ = writeln!(s, "    v{} = iadd.i64 v{}, v{}", p + 3, p, p + 2);
    let _ = writeln!(s, "    store.i64 v{}, v{}", p + 1, p + 3);
    let _ = writeln!(s, "    v{} = iadd_imm.i64 v{}, 8", p + 4, p + 2);
    let _ = writeln!(s, "    v{} = icmp_imm.i64 ult v{}, {}", p + 5, p + 4, ops::FUEL_OFFSET);
    let _ = writeln!(s, "    brif v{}, block1(v{}), block2\n", p + 5, p + 4);
    let _ = writeln!(s, "block2:");
    let _ = writeln!(s, "    v{} = iconst.i64 {}", p + 6, EXPORT_FUEL);
    let _ = writeln!(s, "    store.i64 v{}, v{}+{}", p + 6, p, ops::FUEL_OFFSET);
    let call_args = std::iter::once(format!("v{p}")).chain((0..params).map(|i| format!("v{i}"))).collect::<Vec<_>>();
    let _ = writeln!(s, "    v{} = call fn0({})", p + 7, call_args.join(", "));
    let _ = writeln!(s, "    return v{}", p + 7);
    let _ = writeln!(s, "}}");
    let run_args = list(params, &|i| args.get(i).copied().unwrap_or(0).to_string());
    match expected.end {
        End::Return(v) => {
            let _ = writeln!(s, "; run: %run({run_args}) == {v}");
        }
        End::Trap(t) => {
            let _ = writeln!(s, "; %run({run_args}) must trap ({t}: int_divz or int_ovf); no run line can say so");
        }
        End::OutOfFuel | End::CallDepthExceeded => {}
    }
    s
}

/// The version of `cranelift-codegen` in Cargo.lock (a test keeps the two
/// equal).
pub const CRANELIFT_VERSION: &str = "0.135.8";

fn cranelift_version() -> &'static str {
    CRANELIFT_VERSION
}

//! Limits of the harness are never failures: a stage stopped by the
//! emulator's trace capacity, with a trace that agrees with the
//! reference's so far, is inconclusive (exit code 9 and a line of its own
//! in a campaign's summary), never a divergence, an internal error or a
//! failing case.

use super::{holds, ssaref, write_bytes};

/// A loop that prints `n` values, eight per iteration.
fn printer(n: u64) -> String {
    let body: String = (0..8).map(|j| format!("out i + {j}; ")).collect();
    format!("fn main() {{\n    var i = 0;\n    while (i < {n}) {{ {body}i = i + 8; }}\n    return 7;\n}}\n")
}

#[test]
fn a_full_x86_trace_is_inconclusive_not_a_miscompile() {
    // Past the 2^21 words of the emulator's trace: the source ends within
    // its fuel, the x86 code fills the trace with the same words.
    let long = write_bytes("limits-trace.src", printer(2_200_000).as_bytes());
    let run = ssaref(&["run", &long, "--fuel", "100000000"]);
    holds(&run, &long, &[9], "run --stage x86 past the trace capacity");
    assert!(run.stderr.contains("inconclusive") && !run.stderr.contains("internal error"), "{}", run.stderr);
    let check = ssaref(&["check", &long, "--fuel", "100000000", "--regs", "4", "--route", "ssa-ra"]);
    holds(&check, &long, &[9], "check past the trace capacity");
    assert!(check.stderr.contains("trace capacity") && !check.stderr.contains("diverges"), "{}", check.stderr);
    // A trace within the capacity is compared as always.
    let short = write_bytes("limits-trace-short.src", printer(2_000).as_bytes());
    let check = ssaref(&["check", &short, "--regs", "4", "--route", "ssa-ra"]);
    holds(&check, &short, &[0], "check within the trace capacity");
}

#[test]
fn a_campaign_summary_counts_the_limits_of_the_harness_apart() {
    let run = ssaref(&["fuzz", "--count", "2", "--jobs", "1", "--route", "ssa-ra", "--regs", "4"]);
    holds(&run, "fuzz", &[0], "a short campaign");
    let text = format!("{}{}", run.stdout, run.stderr);
    assert!(text.contains("0 inconclusive (a limit of the harness"), "{text}");
}

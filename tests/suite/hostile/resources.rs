//! Memory follows the input: a header that repeats its entries costs what
//! its distinct entries cost, `repro` of a large program stops at
//! `--max-memory` (exit code 5) instead of aborting, and an operating-system
//! limit on address space (`prlimit --as`) is a limit of the harness
//! (inconclusive, exit code 9) or a resource error (exit code 5), never bad
//! input, a crash or a campaign without its summary.

use super::{holds, ssaref, ssaref_limited, write_bytes};

const PROGRAM: &str = "fn main() {\n    out 1;\n    return 2;\n}\n";

#[test]
fn repeated_header_entries_count_once() {
    let regs = format!("// regs: {}\n{PROGRAM}", "2 ".repeat(2500));
    let config = format!("// config: braun=phi+scc {}\n{PROGRAM}", "ra=opt ".repeat(5000));
    let regs = write_bytes("resources-regs.src", regs.as_bytes());
    let config = write_bytes("resources-config.src", config.as_bytes());
    for file in [&regs, &config] {
        for cmd in ["repro", "check"] {
            let run = ssaref(&[cmd, file]);
            holds(&run, file, &[0], &format!("{cmd} of a header that repeats one entry"));
            // Each K and each back end once: a handful of stages, not thousands.
            let stages = run.stdout.lines().filter(|l| l.starts_with("agree")).count();
            assert!(stages < 200, "{cmd} {file}: {stages} stages\n{}", run.stdout);
        }
    }
    let list = vec!["2"; 5000].join(",");
    let run = ssaref(&["check", &regs, "--regs", &list]);
    holds(&run, &regs, &[0], "check --regs 2,2,...");
}

#[test]
fn repro_of_a_large_program_stops_at_the_memory_limit() {
    let body: String = (0..20_000).map(|i| format!("    var x{i} = {i} * 3;\n    out x{i};\n")).collect();
    let big = write_bytes("resources-big.src", format!("fn main() {{\n{body}    return 0;\n}}\n").as_bytes());
    for cmd in ["repro", "reduce"] {
        let run = ssaref(&[cmd, &big, "--max-memory", "16M"]);
        holds(&run, &big, &[5], &format!("{cmd} --max-memory 16M of a large program"));
        assert!(run.stderr.contains("memory limit of 16 MiB exceeded"), "{cmd}: {}", run.stderr);
    }
}

#[test]
fn a_cap_on_address_space_is_a_limit_of_the_harness() {
    let file = write_bytes("resources-cap.src", PROGRAM.as_bytes());
    let mut codes = Vec::new();
    for mib in (256..=2048).step_by(128) {
        let cap = Some(mib << 20);
        let run = ssaref_limited(&["run", &file, "--stage", "x86"], None, None, cap);
        holds(&run, &file, &[0, 5, 9], &format!("run --stage x86 under --as={mib}M"));
        assert!(!run.stderr.contains("Could not allocate"), "{mib} MiB: {}", run.stderr);
        codes.push((mib, run.code));
    }
    // Somewhere between, the process starts but the emulator cannot.
    assert!(codes.iter().any(|&(_, c)| c == 9), "{codes:?}");
    assert_eq!(codes.last().map(|&(_, c)| c), Some(0), "{codes:?}");
    let (tight, _) = *codes.iter().find(|&&(_, c)| c == 9).expect("a cap the emulator does not fit");
    let run = ssaref_limited(&["fuzz", "--count", "2", "--jobs", "2", "--regs", "4"], None, None, Some(tight << 20));
    holds(&run, "fuzz", &[0], &format!("fuzz --jobs 2 under --as={tight}M"));
    let text = format!("{}{}", run.stdout, run.stderr);
    assert!(text.contains("inconclusive (a limit of the harness"), "{text}");
}

//! The minor points of the contract: every message of bad input names its
//! file, a count of 0 makes nothing, no fuel runs nothing at any stage, a
//! `\r` alone ends a line in positions, and the C export of deep nesting
//! grows linearly.

use super::{holds, ssaref, write_bytes};

#[test]
fn a_bad_argument_names_its_file() {
    let src = write_bytes("minor-args.src", b"fn main(n) {\n    return n;\n}\n");
    let ssa = write_bytes("minor-args.ssa", b"fn main(v0) {\nb0:\n    ret v0\n}\n");
    for file in [&src, &ssa] {
        let run = ssaref(&["run", file, "abc"]);
        holds(&run, file, &[1], "run FILE abc");
    }
}

#[test]
fn gen_count_0_prints_no_program() {
    let run = ssaref(&["gen", "--count", "0"]);
    holds(&run, "gen", &[0], "gen --count 0");
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}

#[test]
fn no_fuel_runs_nothing_at_every_stage() {
    let empty = write_bytes("minor-fuel0.src", b"fn main() {\n    return 0;\n}\n");
    for stage in ["source", "ssa", "alloc", "x86"] {
        let run = ssaref(&["run", &empty, "--fuel", "0", "--stage", stage]);
        holds(&run, &empty, &[4], &format!("run --fuel 0 --stage {stage}"));
    }
}

#[test]
fn reduce_out_is_checked_before_the_work_fifos_included() {
    let case = write_bytes("minor-reduce.src", b"// target: gcc O2\nfn main() {\n    return 0;\n}\n");
    let fifo = super::dir().join("minor-fifo");
    let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).expect("a path");
    // SAFETY: `c` is a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    let fifo = fifo.to_string_lossy().into_owned();
    let plain = write_bytes("minor-reduce-plain.src", b"// regs: 2\nfn main() {\n    return 0;\n}\n");
    for (case, extra) in [(&plain, &[][..]), (&case, &[][..]), (&case, &["--target", "gcc"][..])] {
        let mut args = vec!["reduce", case, "--out", &fifo];
        args.extend_from_slice(extra);
        let run = ssaref(&args);
        holds(&run, case, &[6], &format!("reduce {case} --out FIFO {extra:?}"));
    }
    let run = ssaref(&["reduce", &case, "--target", "gcc", "--out", "/proc/nonexistent/x"]);
    holds(&run, &case, &[6], "reduce --target --out under a missing folder");
}

#[test]
fn a_lone_carriage_return_ends_a_line() {
    let file = write_bytes("minor-cr.src", b"fn main() {\r    var x = 1;\r    x = ;\r    return x;\r}\r");
    let run = ssaref(&["run", &file]);
    holds(&run, &file, &[1], "a syntax error on line 3 of a file with CR line ends");
    assert!(run.stderr.starts_with(&format!("{file}:3:9: ")), "{}", run.stderr);
    // A header with CR line ends is a header.
    let case =
        write_bytes("minor-cr-case.src", b"// args: 4\r// expect:\r// return 4\rfn main(n) {\r    return n;\r}\r");
    let run = ssaref(&["run", &case]);
    holds(&run, &case, &[0], "a case file with CR line ends");
    assert_eq!(run.stdout, "return 4\n");
}

#[test]
fn the_c_export_of_deep_nesting_grows_linearly() {
    let n = 20_000;
    let text = format!("fn main(x) {{\n{}out 1;{}\n    return 0;\n}}\n", "if (x) { ".repeat(n), "}".repeat(n));
    let program = ssaref::frontend::parser::parse_program(&text).expect("a program");
    // The export recurses on the tree, as the command line's big stack allows.
    let export = || ssaref::targets::c_source::source_program(&program, "f");
    let thread = std::thread::Builder::new().stack_size(256 << 20);
    let c = std::thread::scope(|s| thread.spawn_scoped(s, export).expect("a thread").join().expect("the export"));
    assert!(c.len() < n * 1000, "{} bytes of C for {n} nested ifs", c.len());
}

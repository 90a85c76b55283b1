//! The minor points of the contract: every message of bad input names its
//! file, a count of 0 makes nothing, and no fuel runs nothing at any stage.

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

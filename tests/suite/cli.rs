//! The `ssaref` command line: outputs, exit codes, and `FILE:LINE:COL:
//! message` diagnostics for bad input (never a panic).

use std::path::PathBuf;
use std::process::Command;

fn ssaref(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ssaref")).args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn write(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("ssaref-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.to_string_lossy().into()
}

#[test]
fn run_prints_the_trace_then_the_end_at_every_stage() {
    let f = write("ok.src", "fn main(a, b) { out a + b; out a / b; return 7; }\n");
    for stage in ["source", "ssa", "cytron", "alloc"] {
        let (code, out, err) = ssaref(&["run", &f, "3", "-4", "--stage", stage, "--regs", "2"]);
        assert_eq!((code, out.as_str(), err.as_str()), (0, "-1\n0\nreturn 7\n", ""), "stage {stage}");
    }
    let (code, out, _) = ssaref(&["run", &f, "1", "0"]);
    assert_eq!((code, out.as_str()), (0, "1\ntrap divide-error\n"), "a trap is an outcome");
}

#[test]
fn bad_input_gives_file_line_col_and_exit_1() {
    let cases = [
        ("syntax.src", "fn main() {\n    out 1\n}\n", ":3:1: "),
        ("label.src", "fn main() {\n  goto nowhere;\n}\n", ":2:3: "),
        ("dup.src", "fn main() {\n L: L:\n}\n", ":2:5: "),
        ("literal.src", "fn main() { return 99999999999999999999; }\n", ":1:20: "),
    ];
    for (name, text, pos) in cases {
        let f = write(name, text);
        let (code, out, err) = ssaref(&["run", &f]);
        assert_eq!(code, 1, "{name}: {err}");
        assert!(out.is_empty(), "{name}");
        assert!(err.starts_with(&format!("{f}{pos}")), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    let f = write("args.src", "// a header\nfn main(a) { return a; }\n");
    let (code, _, err) = ssaref(&["run", &f, "1", "2"]);
    assert_eq!(code, 1);
    assert!(err.starts_with(&format!("{f}:2:1: too many arguments")), "{err}");
    let (code, _, err) = ssaref(&["run", &f, "x"]);
    assert_eq!(code, 1, "{err}");
    let (code, _, err) = ssaref(&["run", "/nonexistent/file.src"]);
    assert_eq!(code, 1, "{err}");
}

#[test]
fn out_of_fuel_exits_4() {
    let f = write("loop.src", "fn main() { while (1) { } }\n");
    let (code, out, err) = ssaref(&["run", &f, "--fuel", "1000"]);
    assert_eq!(code, 4, "{err}");
    assert_eq!(out, "out-of-fuel\n");
}

#[test]
fn emit_alloc_shows_annotated_code_and_swap() {
    let f = write(
        "swap.src",
        "fn main(a, b) { var x = a; var y = b; while (x) { var t = x; x = y; y = !t; } return y; }\n",
    );
    let (code, out, err) = ssaref(&["emit", &f, "--stage", "alloc", "--regs", "2", "--passes"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("== after phi-lifting (K = 2)"), "{out}");
    assert!(out.contains("swap rcx, rax") || out.contains("swap rax, rcx"), "{out}");
}

#[test]
fn gen_output_runs_and_fuzz_and_repro_work() {
    let (code, program, err) = ssaref(&["gen", "--seed", "7"]);
    assert_eq!(code, 0, "{err}");
    let f = write("gen7.src", &program);
    let args: Vec<String> = program
        .lines()
        .find_map(|l| l.strip_prefix("// args:"))
        .map(|a| a.split_whitespace().map(String::from).collect())
        .unwrap_or_default();
    let mut run_args = vec!["run".to_string(), f.clone()];
    run_args.extend(args);
    let run_args: Vec<&str> = run_args.iter().map(String::as_str).collect();
    let (code, _, err) = ssaref(&run_args);
    assert!(code == 0 || code == 4, "{err}");
    let out_dir = std::env::temp_dir().join(format!("ssaref-cli-fuzz-{}", std::process::id()));
    let (code, out, err) = ssaref(&[
        "fuzz",
        "--count",
        "5",
        "--jobs",
        "1",
        "--seed",
        "3",
        "--regs",
        "2,4",
        "--out",
        &out_dir.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("5 programs"), "{out}");
    let (code, out, err) = ssaref(&["repro", &f, "--regs", "3"]);
    assert!(code == 0 || code == 4, "{err}");
    assert!(out.contains("== ssa-ra[opt]: allocated (K = 3)"), "{out}");
    // Nothing failed: no back end's listing, no regalloc2 input.
    assert!(!out.contains("x86-64 (K = 3)") && !out.contains("// regalloc2 input"), "{out}");
    let (code, out, err) = ssaref(&["repro", &f, "--regs", "3", "--listing"]);
    assert!(code == 0 || code == 4, "{err}");
    for title in
        ["\n== x86-64 (K = 3)", "== out-of-ssa: x86-64 (", "== regalloc2: x86-64 (K = 3)", "// regalloc2 input"]
    {
        assert!(out.contains(title), "{title}: {out}");
    }
    assert!(out.contains("== allocated (K = 3)"), "{out}");
}

#[test]
fn fuzz_shard_is_checked_and_named_in_the_rerun_command() {
    for (bad, says) in [
        ("3/2", "shard 3 of 2 does not exist"),
        ("2/2", "numbered 0 to 1"),
        ("0/0", "at least 1"),
        ("x", "not of the form I/N"),
        ("1/y", "not a non-negative integer"),
    ] {
        let (code, _, err) = ssaref(&["fuzz", "--shard", bad, "--count", "0", "--seed", "1"]);
        assert_eq!(code, 2, "--shard {bad}: {err}");
        assert!(err.contains(says) && !err.contains("panicked"), "--shard {bad}: {err}");
    }
    let out_dir = std::env::temp_dir().join(format!("ssaref-cli-shard-{}", std::process::id()));
    let (code, _, err) = ssaref(&[
        "fuzz",
        "--shard",
        "1/3",
        "--count",
        "0",
        "--jobs",
        "1",
        "--seed",
        "9",
        "--out",
        &out_dir.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("rerun with --seed 9 --shard 1/3"), "{err}");
}

#[test]
fn reduce_refuses_a_case_that_does_not_fail() {
    let f = write("passing.src", "// ssaref fuzz failure, seed 1\n// regs: 2\n// args: 3\nfn main(a) { out a * a; }\n");
    let (code, out, err) = ssaref(&["reduce", &f]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("does not fail"), "{err}");
    assert!(!std::path::Path::new(&f.replace(".src", ".reduced.src")).exists(), "wrote a reduced case");
}

#[test]
fn reduce_and_repro_report_a_malformed_case_file_at_its_position() {
    let cases = [
        ("badregs.src", "// seed 1\n// regs: 2 99\nfn main() { return 0; }\n", ":2:12: bad register count `99`"),
        ("badargs.src", "// args: 1 two\nfn main(a, b) { return 0; }\n", ":1:12: argument `two`"),
        ("manyargs.src", "// args: 1 2\nfn main(a) { return a; }\n", ":2:1: too many arguments"),
        ("syntax.src", "// args: 1\nfn main(a) { return a }\n", ":2:23: expected `;`"),
    ];
    for (name, text, pos) in cases {
        let f = write(name, text);
        for cmd in ["reduce", "repro"] {
            let (code, out, err) = ssaref(&[cmd, &f]);
            assert_eq!(code, 1, "{cmd} {name}: {out}{err}");
            assert!(err.starts_with(&format!("{f}{pos}")), "{cmd} {name}: {err}");
            assert!(!err.contains("panicked"), "{cmd} {name}: {err}");
        }
    }
}

#[test]
fn ssa_files_run_and_check_on_every_route() {
    let f = write(
        "fig1.ssa",
        "// args: 0 -1\nfn main(v0, v1) {\nb0:\n    v2 = const 1\n    v3 = add v1, v2\n    br v0, b1, b2\nb1(b0):\n    jump b3\nb2(b0):\n    v6 = const 7\n    v4 = add v3, v6\n    br v3, b3, b4\nb3(b1, b2):\n    v5 = phi v3, v4\n    out v5\n    ret v5\nb4(b2):\n    out v3\n    out v4\n    ret v4\n}\n",
    );
    for stage in ["ssa", "out-of-ssa", "alloc", "x86"] {
        for route in ["ssa-ra", "out-of-ssa", "regalloc2"] {
            let (code, out, err) = ssaref(&["run", &f, "--stage", stage, "--route", route, "--regs", "2"]);
            assert_eq!((code, out.as_str(), err.as_str()), (0, "0\n7\nreturn 7\n", ""), "{stage} {route}");
        }
    }
    let (code, out, _) = ssaref(&["run", &f, "0", "5"]);
    assert_eq!((code, out.as_str()), (0, "13\nreturn 13\n"), "command-line arguments win over the header's");
    let (code, _, err) = ssaref(&["run", &f, "--stage", "source"]);
    assert_eq!(code, 1, "no AST: {err}");
    let (code, out, err) = ssaref(&["check", &f, "--regs", "2,15"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("agree  ssa-input") && out.contains("agree  x86-regalloc2[k=15]"), "{out}");
}

#[test]
fn bad_ssa_gives_file_line_col_or_file_and_exit_1() {
    let cases = [
        ("syntax.ssa", "fn main() {\nb0:\n    ret\n}\n", ":3:".to_string()),
        ("undefined.ssa", "// x\nfn main() {\nb0:\n    jump b1\nb1(b0):\n    ret v7\n}\n", ":5:1: ".to_string()),
        ("preds.ssa", "fn main() {\nb0:\n    v0 = const 1\n    ret v0\nb1(b0):\n    ret v0\n}\n", ":".to_string()),
        (
            "nomain.ssa",
            "fn f() {\nb0:\n    v0 = const 1\n    ret v0\n}\n",
            ": the module has no function `main`".to_string(),
        ),
        ("args.ssa", "// args: 1 2\nfn main(v0) {\nb0:\n    ret v0\n}\n", ":2:1: too many arguments".to_string()),
    ];
    for (name, text, pos) in cases {
        let f = write(name, text);
        for cmd in ["run", "check", "emit", "repro", "reduce"] {
            let (code, out, err) = ssaref(&[cmd, &f]);
            assert_eq!(code, 1, "{cmd} {name}: {err}");
            assert!(out.is_empty(), "{cmd} {name}");
            assert!(err.starts_with(&format!("{f}{pos}")), "{cmd} {name}: {err}");
            assert!(!err.contains("panicked"), "{cmd} {name}: {err}");
        }
    }
}

/// `emit`, `repro` and `reduce` take `.ssa` cases as they take `.src`
/// ones: every stage and route, the header's `regs:` and `args:`, and a
/// case that does not fail is not reduced.
#[test]
fn ssa_cases_emit_repro_and_reduce() {
    let f = write(
        "fig1e.ssa",
        "// Fig. 1\n// regs: 2\n// args: 0 -1\nfn main(v0, v1) {\nb0:\n    v2 = const 1\n    v3 = add v1, v2\n    br v0, b1, b2\nb1(b0):\n    jump b3\nb2(b0):\n    v6 = const 7\n    v4 = add v3, v6\n    br v3, b3, b4\nb3(b1, b2):\n    v5 = phi v3, v4\n    out v5\n    ret v5\nb4(b2):\n    out v3\n    out v4\n    ret v4\n}\n",
    );
    let (code, out, err) = ssaref(&["emit", &f]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("fn main(v0, v1) {\nb0:\n    v2 = const 1\n") && out.contains("b3(b1, b2):"), "{out}");
    let (code, out, err) = ssaref(&["emit", &f, "--stage", "out-of-ssa"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("phi"), "{out}");
    for route in ["ssa-ra", "out-of-ssa", "regalloc2"] {
        let (code, out, err) = ssaref(&["emit", &f, "--stage", "alloc", "--route", route, "--regs", "2"]);
        assert_eq!(code, 0, "{route}: {err}");
        assert!(out.starts_with("fn main(") && out.contains(") regs 2 slots "), "{route}: {out}");
        let (code, out, err) = ssaref(&["emit", &f, "--stage", "x86", "--route", route, "--regs", "3"]);
        assert_eq!(code, 0, "{route}: {err}");
        assert!(out.contains("K = 3"), "{route}: {out}");
    }
    let (code, _, err) = ssaref(&["emit", &f, "--stage", "cytron"]);
    assert_eq!(code, 1, "no AST: {err}");
    let (code, out, err) = ssaref(&["repro", &f]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("== SSA program (args [0, -1])"), "{out}");
    assert!(out.contains("agree    ssa-input") && out.contains("agree    x86-regalloc2[k=2]"), "{out}");
    assert!(!out.contains("[k=3"), "the header's regs: 2: {out}");
    assert!(out.ends_with("0\n7\nreturn 7\n"), "{out}");
    // `boissinot` is an alias of `out-of-ssa`.
    for route in ["out-of-ssa", "boissinot"] {
        let (code, out, _) = ssaref(&["repro", &f, "--regs", "3", "--route", route]);
        assert_eq!(code, 0);
        assert!(out.contains("x86-out-of-ssa[k=3") && !out.contains("regalloc2[k=3]"), "{out}");
    }
    let (code, out, err) = ssaref(&["reduce", &f]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("does not fail"), "{err}");
    assert!(!std::path::Path::new(&f.replace(".ssa", ".reduced.ssa")).exists(), "wrote a reduced case");
}

/// `repro` reads a case file that names the back ends and stages by their
/// names of before each back end had one (`rotation.rs` writes it), replays
/// the configuration of its `config:` line, and shows the stages by their
/// names.
#[test]
fn repro_reads_a_case_file_with_the_old_names() {
    let (old, _) = crate::rotation::old_and_new_config_lines();
    let f = write("old-names.src", &crate::rotation::old_case_file(&old));
    let (code, out, err) = ssaref(&["repro", &f]);
    assert_eq!(code, 0, "{out}{err}");
    for stage in [
        "agree    ssa-ra[k=4,plain]",
        "agree    x86-ssa-ra[k=2,opt]",
        "agree    out-of-ssa[k=4,sharing,check,linear-scan]",
        "agree    x86-out-of-ssa[k=2,value,sets,spill-everything,quadratic]",
        "agree    x86-regalloc2[k=4]",
    ] {
        assert!(out.contains(stage), "{stage}: {out}");
    }
    for old_name in ["alloc[", "conv[", "boissinot["] {
        assert!(!out.contains(old_name), "{old_name}: {out}");
    }
}

#[test]
fn fuzz_mixes_in_ir_level_programs() {
    for bad in ["x", "-5", "150", "101%"] {
        let (code, _, err) = ssaref(&["fuzz", "--ir-share", bad, "--count", "0", "--seed", "1"]);
        assert_eq!(code, 2, "--ir-share {bad}: {err}");
    }
    let out_dir = std::env::temp_dir().join(format!("ssaref-cli-irshare-{}", std::process::id()));
    let out_dir = out_dir.to_string_lossy();
    let fuzz = |share: &str| {
        ssaref(&[
            "fuzz",
            "--count",
            "3",
            "--jobs",
            "1",
            "--seed",
            "5",
            "--regs",
            "2",
            "--ir-share",
            share,
            "--out",
            &out_dir,
        ])
    };
    let (code, out, err) = fuzz("1");
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("100% IR-level"), "{err}");
    assert!(out.contains("3 of the programs were IR-level"), "{out}");
    let (code, out, err) = fuzz("0%");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("0 of the programs were IR-level"), "{out}");
}

/// A generated function of about 10,000 statements (about 350 KB of source).
fn large_program() -> String {
    let (code, text, err) = ssaref(&["gen", "--seed", "1", "--shape", "structured", "--size", "10000"]);
    assert_eq!(code, 0, "{err}");
    write("large.src", &text)
}

#[test]
fn max_memory_stops_run_check_and_emit_with_one_line_and_exit_5() {
    let f = large_program();
    let commands: [&[&str]; 4] = [
        &["emit", &f, "--stage", "ssa"],
        &["emit", &f, "--stage", "x86", "--no-check"],
        &["run", &f, "--stage", "ssa"],
        &["check", &f, "--route", "ssa-ra", "--regs", "4"],
    ];
    for cmd in commands {
        let mut args = cmd.to_vec();
        args.extend(["--max-memory", "8M"]);
        let (code, out, err) = ssaref(&args);
        assert_eq!(code, 5, "{cmd:?}: {err}");
        assert!(out.is_empty(), "{cmd:?}: {out}");
        // `check` reports its progress on stderr before the limit stops it.
        let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("check: ")).collect();
        assert_eq!(lines.len(), 1, "{cmd:?}: {err}");
        assert!(lines[0].starts_with("ssaref: memory limit of 8 MiB exceeded (an allocation of "), "{cmd:?}: {err}");
        assert!(lines[0].ends_with("); raise it with --max-memory"), "{cmd:?}: {err}");
        assert!(err.ends_with("); raise it with --max-memory\n"), "{cmd:?}: {err}");
    }
    // The same program within the default limit, and with no limit.
    for limit in [None, Some("none"), Some("0")] {
        let mut args = vec!["emit", &f, "--stage", "ssa", "--no-check"];
        args.extend(limit.iter().flat_map(|l| ["--max-memory", l]));
        let (code, out, err) = ssaref(&args);
        assert_eq!(code, 0, "{limit:?}: {err}");
        assert!(out.starts_with("fn main("), "{limit:?}");
    }
}

#[test]
fn a_bad_max_memory_is_a_usage_error() {
    let f = write("tiny.src", "fn main() { return 1; }\n");
    for bad in ["8X", "-1", "", "1.5G", "lots"] {
        let (code, _, err) = ssaref(&["run", &f, "--max-memory", bad]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.contains("--max-memory"), "{bad}: {err}");
    }
    for good in ["512M", "4G", "1g", "100000000", "0", "none"] {
        let (code, out, err) = ssaref(&["run", &f, "--max-memory", good]);
        assert_eq!((code, out.as_str()), (0, "return 1\n"), "{good}: {err}");
    }
}

#[test]
fn every_case_runs_and_checks_within_the_default_memory_limit() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/cases")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "src"))
        .collect();
    files.sort();
    assert!(files.len() >= 36, "{}", files.len());
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable case");
        let args: Vec<&str> = text
            .lines()
            .take_while(|l| l.starts_with("//"))
            .find_map(|l| l.strip_prefix("// args:"))
            .map(|a| a.split_whitespace().collect())
            .unwrap_or_default();
        let file = path.to_string_lossy();
        // A program with calls runs at every stage, x86 included.
        let calls = ssaref::frontend::parser::parse_program(&text).is_ok_and(|p| p.has_calls());
        for command in ["run", "check"] {
            let mut cmd = vec![command, &*file];
            cmd.extend(&args);
            let (code, _, err) = ssaref(&cmd);
            // `check` of a program whose reference run passes the call-depth
            // bound has nothing to compare: exit code 4, as out of fuel.
            let deep = text.lines().any(|l| l.trim() == "// call-depth-exceeded");
            let expected = match (calls, command) {
                (true, "check") if deep => 4,
                _ => 0,
            };
            assert_eq!(code, expected, "{command} {file}: {err}");
        }
    }
}

#[test]
fn run_and_emit_iterate_over_the_back_ends_of_route() {
    let f = write("sum.src", "fn main(n) { var s = 0; while (n) { s = s + n; n = n - 1; } out s; return s / 3; }\n");
    let (code, out, err) = ssaref(&["run", &f, "10", "--route", "all", "--regs", "2"]);
    assert_eq!(code, 0, "{err}");
    let each = "55\nreturn 18\n";
    let expected =
        format!("== ssa-ra[opt]\n{each}== out-of-ssa[sharing,check,linear-scan]\n{each}== regalloc2\n{each}");
    assert_eq!(out, expected);
    // One back end: the outcome alone, as before.
    let (code, out, _) = ssaref(&["run", &f, "10", "--route", "regalloc2", "--regs", "2", "--stage", "alloc"]);
    assert_eq!((code, out.as_str()), (0, each));
    let (code, out, err) = ssaref(&["emit", &f, "--stage", "x86", "--route", "both", "--regs", "3"]);
    assert_eq!(code, 0, "{err}");
    let heads: Vec<&str> = out.lines().filter(|l| l.starts_with("== ")).collect();
    assert_eq!(heads, ["== ssa-ra[opt]", "== out-of-ssa[sharing,check,linear-scan]"], "{out}");
}

#[test]
fn the_x86_listing_names_each_mir_instruction_and_its_ssa_values() {
    let file = write("listing.src", "fn main(a, b) { out a * b + a; return a - b; }\n");
    let (code, out, err) = ssaref(&["emit", &file, "--stage", "x86", "--regs", "4", "--route", "ssa-ra"]);
    assert_eq!(code, 0, "{err}");
    // Each MIR instruction heads the machine code that implements it, with
    // the values it defines and reads (docs/command-line.md, "emit").
    for line in ["; rdx = mul rax, rcx  ; v2 <- v0, v1", "; rdx = add rax, rdx  ; v3 <- v0, v2", "; out rdx  ; <- v3"] {
        assert!(out.lines().any(|l| l.trim_start() == line), "no `{line}` in:\n{out}");
    }
    assert!(out.starts_with("; main: "), "{out}");
}

#[test]
fn run_and_check_take_a_case_files_args_line_when_given_none() {
    // collatz.src's `// args: 27`; with 0 instead, the loop never ends.
    let (code, out, err) = ssaref(&["run", "tests/cases/collatz.src"]);
    assert_eq!((code, out.as_str()), (0, "9232\nreturn 111\n"), "{err}");
    let (code, _, err) = ssaref(&["check", "tests/cases/collatz.src", "--route", "regalloc2", "--regs", "2,3"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = ssaref(&["run", "tests/cases/collatz.src", "1"]);
    assert_eq!((code, out.as_str()), (0, "1\nreturn 0\n"));
}

/// A case that `fuzz --target` wrote names its target on a `target:` line:
/// `repro` without `--target` replays it there (under the recorded option
/// set only), not on ssaref's own back ends, where it passed.
#[test]
fn repro_without_target_replays_a_target_case_on_its_recorded_target() {
    let f = write(
        "target-case.src",
        "// fuzz --target: a wrong output\n// target: gcc O1\n// args: 7 3\nfn main(a, b) { out a * b; return a - b; }\n",
    );
    let (code, out, err) = ssaref(&["repro", &f]);
    assert_eq!(code, 0, "{out}{err}");
    // One line for the recorded option set, nothing of ssaref's stages.
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines.len() == 1
            && lines[0].contains(" gcc")
            && (lines[0].starts_with("agree") || lines[0].starts_with("skip")),
        "{out}"
    );
    assert!(lines[0].starts_with("skip") || lines[0].ends_with("gcc O1"), "{out}");
    // Without the line, the same program goes through ssaref's back ends.
    let g = write("plain-case.src", "// args: 7 3\nfn main(a, b) { out a * b; return a - b; }\n");
    let (code, out, _) = ssaref(&["repro", &g]);
    assert_eq!(code, 0);
    assert!(out.contains("== program"), "{out}");
}

/// A target named with a version that is not installed is its own error:
/// exit code 8, the tool and its Debian package named, before any work;
/// a malformed version is an unknown target (exit code 2).
#[test]
fn a_target_whose_compiler_is_not_installed_exits_8() {
    for cmd in [&["check", "tests/cases/gcd_euclid.src"][..], &["fuzz", "--seconds", "1"][..]] {
        let mut args = cmd.to_vec();
        args.extend(["--target", "llvm-999"]);
        let (code, out, err) = ssaref(&args);
        assert_eq!(code, 8, "{args:?}: {out}{err}");
        assert!(err.contains("`llc-999` is not installed") && err.contains("llvm-999"), "{err}");
    }
    let (code, _, err) = ssaref(&["check", "tests/cases/gcd_euclid.src", "--target", "llvm-x9"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown target `llvm-x9`"), "{err}");
}

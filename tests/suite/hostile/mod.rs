//! Hostile input: every command of `ssaref`, run as a child process with a
//! time limit and a memory limit, on malformed programs, SSA and case
//! files (truncations, every byte value, text that is not UTF-8, CR, CRLF
//! and NUL, the limits of the numbers), on out-of-bound command-line values
//! and with an output that cannot be written. Each run must keep the
//! contract of docs/command-line.md, "Exit codes": no panic (never exit
//! code 101), the exit code of its class, `FILE:LINE:COL: message` (or
//! `FILE: message` when the error has no position) for bad input, and
//! bounded time and memory.
//!
//! `SSAREF_HOSTILE_COUNT` (default 40) sets how many random mutations of
//! each base text are run, besides the fixed sweeps; every mutation is
//! reproducible from its number. `SSAREF_HOSTILE_LONG=1` adds the runs of
//! tens of seconds (see [`long`]).

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest a run may take: far above what any input here needs.
const TIMEOUT: Duration = Duration::from_secs(60);
/// The data segment limit of a child (`RLIMIT_DATA`): Unicorn reserves a
/// translation buffer of about 2 GiB of address space at start, of which
/// little is resident, so the limit sits above that; resident memory is
/// checked separately (`MAX_RSS_KIB`).
const DATA_LIMIT: u64 = 4 << 30;
/// The most resident memory any child may reach, in KiB (`ru_maxrss`).
const MAX_RSS_KIB: i64 = 512 << 10;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    /// The child's own peak resident memory (`ru_maxrss`, KiB).
    max_rss_kib: i64,
}

/// Runs `ssaref args` with the limits; stdout goes to `stdout` (a pipe
/// that is read when `None`, else that file), stderr likewise.
fn ssaref_to(args: &[&str], stdout: Option<std::fs::File>, stderr: Option<std::fs::File>) -> Run {
    ssaref_limited(args, stdout, stderr, None)
}

/// [`ssaref_to`], with the child's address space limited to
/// `address_space` bytes (`RLIMIT_AS`, as `prlimit --as`) when given.
fn ssaref_limited(
    args: &[&str],
    stdout: Option<std::fs::File>,
    stderr: Option<std::fs::File>,
    address_space: Option<u64>,
) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ssaref"));
    cmd.args(args).stdin(Stdio::null());
    cmd.stdout(stdout.map_or_else(Stdio::piped, Stdio::from));
    cmd.stderr(stderr.map_or_else(Stdio::piped, Stdio::from));
    // SAFETY: `setrlimit` is async-signal-safe; nothing else runs between
    // fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let data = libc::rlimit { rlim_cur: DATA_LIMIT, rlim_max: DATA_LIMIT };
            let core = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            libc::setrlimit(libc::RLIMIT_DATA, &data);
            libc::setrlimit(libc::RLIMIT_CORE, &core);
            if let Some(bytes) = address_space {
                let space = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
                libc::setrlimit(libc::RLIMIT_AS, &space);
            }
            Ok(())
        });
    }
    // Reaped by `wait4` below, which clippy cannot see.
    #[allow(clippy::zombie_processes)]
    let mut child = cmd.spawn().expect("ssaref starts");
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut s);
            }
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let out = reader(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let err = reader(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let start = Instant::now();
    let pid = child.id() as libc::pid_t;
    // `wait4` rather than `Child::try_wait`: it gives this child's own
    // `ru_maxrss` (the children of the whole test process share one
    // `RUSAGE_CHILDREN`, whatever test started them).
    let (status, max_rss_kib) = loop {
        let mut status = 0;
        // SAFETY: `usage` is a valid `rusage` for `wait4` to fill in.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `pid` is this test's own child, not yet reaped.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(r >= 0, "wait4 failed for ssaref {args:?}");
        if r == pid {
            break (status, usage.ru_maxrss);
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("ssaref {args:?} ran longer than {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { -1 };
    let run = Run {
        code,
        stdout: out.join().expect("stdout reader"),
        stderr: err.join().expect("stderr reader"),
        max_rss_kib,
    };
    assert!(run.code != -1, "ssaref {args:?} was killed by a signal: wait status {status}\n{}", run.stderr);
    run
}

fn ssaref(args: &[&str]) -> Run {
    ssaref_to(args, None, None)
}

/// The contract of every run: no panic, an exit code of `allowed`, and
/// for bad input (exit code 1) a first line `FILE:LINE:COL: message` or
/// `FILE: message`.
fn holds(run: &Run, file: &str, allowed: &[i32], what: &str) {
    assert!(!run.stderr.contains("panicked"), "{what}: a panic\n{}", run.stderr);
    assert!(allowed.contains(&run.code), "{what}: exit code {} (allowed {allowed:?})\n{}", run.code, run.stderr);
    if run.code == 1 {
        let first = run.stderr.lines().next().unwrap_or("");
        let rest = first.strip_prefix(file).and_then(|r| r.strip_prefix(':')).unwrap_or_else(|| {
            panic!("{what}: the error does not start with `{file}:`: {first}");
        });
        let mut parts = rest.splitn(3, ':');
        let positioned = match (parts.next(), parts.next(), parts.next()) {
            (Some(l), Some(c), Some(m)) => {
                l.parse::<u32>().is_ok() && c.parse::<u32>().is_ok() && m.starts_with(' ') && m.len() > 1
            }
            _ => false,
        };
        assert!(positioned || rest.starts_with(' ') && rest.len() > 1, "{what}: not `FILE:LINE:COL: message`: {first}");
    }
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("ssaref-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn write_bytes(name: &str, bytes: &[u8]) -> String {
    let p = dir().join(name);
    std::fs::write(&p, bytes).expect("write");
    p.to_string_lossy().into_owned()
}

/// A small reproducible random source (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The long mode, `SSAREF_HOSTILE_LONG=1`: the runs that take tens of
/// seconds and add no class of their own to the default mode.
fn long() -> bool {
    std::env::var("SSAREF_HOSTILE_LONG").is_ok_and(|s| s == "1")
}

fn count() -> usize {
    std::env::var("SSAREF_HOSTILE_COUNT").ok().and_then(|s| s.parse().ok()).unwrap_or(40)
}

const SOURCE: &str = "// A case file.\n// regs: 2 3\n// args: 5\n// expect:\n// 5\n// 120\n// return 120\n// mem[1] = 5\n\
fn main(n) {\n    out n;\n    var f = 1;\n    mem[1] = n;\n    while (n > 0) {\n        f = f * n;\n        n = n - 1;\n    }\n    out f;\n    return f;\n}\n";

const SSA: &str = "// args: 3 -1\n// expect:\n// return 2\nfn main(v0, v1) {\nb0:\n    v2 = const 1\n    br v0, b1, b2\nb1(b0):\n    v3 = add v0, v1\n    jump b2\nb2(b0, b1):\n    v4 = phi v2, v3\n    ret v4\n}\n";

/// Malformed variants of `base`: every truncation (at most `limit` of them,
/// evenly spread), every byte value at one place, then `count()` random
/// mutations (byte flips, insertions, deletions, duplicated lines).
fn variants(base: &str, limit: usize) -> Vec<Vec<u8>> {
    let b = base.as_bytes();
    let mut out = Vec::new();
    let step = (b.len() / limit.max(1)).max(1);
    out.extend((0..b.len()).step_by(step).map(|i| b[..i].to_vec()));
    let at = b.len() / 2;
    for byte in 0..=255u8 {
        let mut v = b.to_vec();
        v.insert(at, byte);
        out.push(v);
    }
    for i in 0..count() {
        let mut rng = Rng(i as u64 + 1);
        let mut v = b.to_vec();
        for _ in 0..1 + rng.below(4) {
            let p = rng.below(v.len());
            match rng.below(4) {
                0 => v[p] = rng.next() as u8,
                1 => v.insert(p, rng.next() as u8),
                2 => {
                    v.remove(p);
                }
                _ => {
                    let line: Vec<u8> = v[p..].iter().copied().take_while(|&c| c != b'\n').collect();
                    v.splice(p..p, line);
                }
            }
        }
        out.push(v);
    }
    out
}

/// Runs every variant through `args` (the file in place of `{}`) in
/// parallel, checking the contract with the exit codes `allowed`.
fn sweep(name: &str, texts: Vec<Vec<u8>>, args: &[&str], allowed: &[i32]) {
    let jobs = 4;
    let texts: Vec<(usize, Vec<u8>)> = texts.into_iter().enumerate().collect();
    std::thread::scope(|s| {
        for j in 0..jobs {
            let texts = &texts;
            s.spawn(move || {
                for (i, t) in texts.iter().skip(j).step_by(jobs) {
                    let file = write_bytes(&format!("{name}-{i}.{}", name.rsplit('.').next().unwrap_or("src")), t);
                    let args: Vec<&str> = args.iter().map(|a| if *a == "{}" { file.as_str() } else { a }).collect();
                    let run = ssaref(&args);
                    holds(&run, &file, allowed, &format!("{name} variant {i} ({:?})", String::from_utf8_lossy(t)));
                }
            });
        }
    });
}

#[test]
fn malformed_programs_get_a_position_and_exit_code_1() {
    // Parsing is the same for every stage: the sweep emits the canonical
    // source; run, check and repro see the same front end.
    sweep("prog.src", variants(SOURCE, 80), &["emit", "{}", "--stage", "source"], &[0, 1]);
    sweep("run.src", variants(SOURCE, 10), &["run", "{}", "--stage", "ssa"], &[0, 1, 4, 7]);
}

#[test]
fn malformed_ssa_gets_a_position_and_exit_code_1() {
    sweep("prog.ssa", variants(SSA, 80), &["emit", "{}"], &[0, 1]);
    sweep("run.ssa", variants(SSA, 10), &["run", "{}", "--stage", "alloc", "--route", "all"], &[0, 1, 4, 7]);
}

#[test]
fn encodings_line_ends_and_numbers() {
    let cases: Vec<(&str, Vec<u8>, i32)> = vec![
        ("utf8.src", b"fn main() {\n    return \xff1;\n}\n".to_vec(), 1),
        ("utf8-late.src", b"fn main() {\n    out 1;\n}\n// \xc3\x28\n".to_vec(), 1),
        ("crlf.src", b"// args: 2\r\nfn main(a) {\r\n    return a;\r\n}\r\n".to_vec(), 0),
        ("cr.src", b"fn main() {\r    return 1;\r}\r".to_vec(), 0),
        ("nul.src", b"fn main() {\0 return 1; }\n".to_vec(), 1),
        ("max.src", b"fn main() { return 9223372036854775807; }\n".to_vec(), 0),
        ("min.src", b"fn main() { return -9223372036854775807 - 1; }\n".to_vec(), 0),
        ("over.src", b"fn main() { return 9223372036854775808; }\n".to_vec(), 1),
        ("utf8.ssa", b"fn main() {\nb0:\n    v0 = const 1\xfe\n    ret v0\n}\n".to_vec(), 1),
        ("crlf.ssa", b"fn main() {\r\nb0:\r\n    v0 = const 1\r\n    ret v0\r\n}\r\n".to_vec(), 0),
        ("nul.ssa", b"fn main() {\nb0:\n    v0 = const 1\0\n    ret v0\n}\n".to_vec(), 1),
        ("bigv.ssa", b"fn main() {\nb0:\n    v4294967294 = const 1\n    ret v4294967294\n}\n".to_vec(), 0),
        (
            "bigv2.ssa",
            b"fn main(v10000000) {\nb0:\n    v4294967293 = add v10000000, v10000000\n    ret v4294967293\n}\n".to_vec(),
            0,
        ),
        ("toobigv.ssa", b"fn main() {\nb0:\n    v4294967295 = const 1\n    ret v4294967295\n}\n".to_vec(), 1),
        ("bigb.ssa", b"fn main() {\nb0:\n    jump b4294967295\n}\n".to_vec(), 1),
        ("entryphi.ssa", b"fn main(v0) {\nb0:\n    v1 = phi\n    ret v1\n}\n".to_vec(), 1),
        ("i64.ssa", b"fn main() {\nb0:\n    v0 = const -9223372036854775808\n    ret v0\n}\n".to_vec(), 0),
    ];
    for (name, bytes, code) in cases {
        let f = write_bytes(name, &bytes);
        for cmd in ["run", "check", "repro"] {
            let mut args = vec![cmd, f.as_str()];
            if cmd == "check" {
                args.extend(["--regs", "2"]);
            }
            if cmd == "repro" {
                args.extend(["--regs", "2", "--route", "ssa-ra"]);
            }
            let run = ssaref(&args);
            holds(&run, &f, &[code], &format!("{cmd} {name}"));
        }
    }
}

#[test]
fn case_files_mean_what_they_say() {
    let bad = [
        ("hello.src", "// expect:\n// hello world\nfn main() { return 0; }\n", ":2:4: "),
        ("segv.src", "// expect:\n// trap segfault\nfn main() { return 0; }\n", ":2:4: "),
        ("range.src", "// expect:\n// 99999999999999999999\n// return 0\nfn main() { return 0; }\n", ":2:4: "),
        ("regs.src", "// regs: 2 99999999999999999999\nfn main() { return 0; }\n", ":1:12: "),
        ("args.src", "// args: 18446744073709551616\nfn main(a) { return 0; }\n", ":1:10: "),
        ("config.src", "// config: braun=nonsense\nfn main() { return 0; }\n", ":1:"),
        ("hello.ssa", "// expect:\n// hello world\nfn main() {\nb0:\n    v0 = const 0\n    ret v0\n}\n", ":2:4: "),
    ];
    for (name, text, pos) in bad {
        let f = write_bytes(name, text.as_bytes());
        for cmd in ["run", "check", "repro", "reduce"] {
            // `run` has its own back-end options and does not read `config:`.
            if cmd == "run" && name == "config.src" {
                continue;
            }
            let run = ssaref(&[cmd, &f, "--fuel", "1000"]);
            holds(&run, &f, &[1], &format!("{cmd} {name}"));
            assert!(run.stderr.starts_with(&format!("{f}{pos}")), "{cmd} {name}: {}", run.stderr);
        }
    }
    // A well-formed expectation that the program does not meet.
    for (name, text) in [
        ("wrong.src", "// expect:\n// return 1\nfn main() { return 0; }\n"),
        ("wrong.ssa", "// expect:\n// 7\n// return 0\nfn main() {\nb0:\n    v0 = const 0\n    ret v0\n}\n"),
    ] {
        let f = write_bytes(name, text.as_bytes());
        for cmd in ["run", "check", "repro"] {
            let run = ssaref(&[cmd, &f, "--regs", "2"]);
            holds(&run, &f, &[7], &format!("{cmd} {name}"));
            assert!(run.stderr.contains("differs from the `// expect:` block"), "{cmd} {name}: {}", run.stderr);
        }
        // Arguments on the command line: the expectation does not apply.
        if name.ends_with(".src") {
            let run = ssaref(&["run", &f, "--regs", "2", "--stage", "source"]);
            holds(&run, &f, &[7], "run with the file's arguments");
        }
    }
    let f = write_bytes("right.src", SOURCE.as_bytes());
    for cmd in ["run", "check", "repro"] {
        let run = ssaref(&[cmd, &f, "--regs", "2"]);
        holds(&run, &f, &[0], &format!("{cmd} right.src"));
    }
    let run = ssaref(&["run", &f, "6"]);
    holds(&run, &f, &[0], "run with other arguments than the file's");
}

/// Command lines whose values are out of their bounds: exit code 2, from
/// every command, before any work.
#[test]
fn command_line_values_are_bounded() {
    let f = write_bytes("ok.src", b"fn main() { return 0; }\n");
    let big = "18446744073709551615";
    let over = "18446744073709551616";
    let lines: Vec<Vec<&str>> = vec![
        vec!["run", &f, "--regs", "0"],
        vec!["run", &f, "--regs", "16"],
        vec!["emit", &f, "--stage", "alloc", "--regs", "1"],
        vec!["check", &f, "--regs", "0"],
        vec!["check", &f, "--regs", "2,16"],
        vec!["repro", &f, "--regs", "0"],
        vec!["fuzz", "--regs", "0", "--count", "1"],
        vec!["fuzz", "--jobs", "0", "--count", "1"],
        vec!["fuzz", "--jobs", big, "--count", "1"],
        vec!["fuzz", "--seconds", big, "--count", "1"],
        vec!["fuzz", "--count", over],
        vec!["fuzz", "--seed", over, "--count", "1"],
        vec!["fuzz", "--shard", "3/2", "--count", "1"],
        vec!["fuzz", "--ir-share", "200%", "--count", "1"],
        vec!["stats", "--regs", "0"],
        vec!["stats", "--compare-backends", "--compare-regs", "0"],
        vec!["stats", "--gen", big],
        vec!["stats", "--compare-backends", "--repeat", "0"],
        vec!["gen", "--count", big],
        vec!["gen", "--size", big],
        vec!["gen", "--size", "0"],
        vec!["gen", "--seed", "-1"],
        vec!["run", &f, "--fuel", big],
        vec!["run", &f, "--max-memory", "99999999999T"],
        vec!["reduce", &f, "--max-tests", "0"],
        vec!["bench-emulator", "--count", big],
        vec!["bench-out-of-ssa", "--sizes", "0"],
        vec!["bench-out-of-ssa", "--function-size", big],
        vec!["bench-out-of-ssa", "--repetitions", "0"],
        vec!["bench-construction", "--sizes", big],
        vec!["bench-construction", "--repeat", "0"],
        vec!["reproduce", "--fuel", big],
        vec!["nonsense"],
        vec!["run"],
    ];
    for l in &lines {
        let run = ssaref(l);
        holds(&run, &f, &[2], &format!("{l:?}"));
        assert!(run.stderr.starts_with("error: "), "{l:?}: {}", run.stderr);
    }
    // The bounds themselves are accepted.
    let run = ssaref(&["run", &f, "--regs", "15", "--fuel", "1000000000000"]);
    holds(&run, &f, &[0], "the largest K and fuel");
    let d = dir().join("jobs");
    let d = d.to_string_lossy();
    let run = ssaref(&["fuzz", "--jobs", "1024", "--count", "0", "--seed", "1", "--out", &d]);
    holds(&run, &f, &[0], "fuzz --jobs 1024");
}

/// Output that cannot be written ends the command with exit code 6 and a
/// message, never a panic; stderr that cannot be written changes no exit
/// code.
#[test]
fn output_errors_are_errors() {
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
    let good = write_bytes("good.src", SOURCE.as_bytes());
    let good_ssa = write_bytes("good.ssa", SSA.as_bytes());
    let bad = write_bytes("bad.src", b"fn main( {\n");
    let looping = write_bytes("loop.src", b"fn main() { while (1) { } }\n");
    let out = dir().join("cases");
    let out = out.to_string_lossy();
    let to_full: Vec<Vec<&str>> = vec![
        vec!["run", &good],
        vec!["run", &good_ssa, "--route", "all"],
        vec!["emit", &good],
        vec!["emit", &good, "--stage", "x86"],
        vec!["emit", &good_ssa, "--stage", "alloc"],
        vec!["check", &good, "--regs", "2"],
        vec!["repro", &good, "--regs", "2", "--route", "ssa-ra"],
        vec!["gen", "--seed", "1"],
        vec!["gen", "--ir", "--seed", "1"],
        vec!["fuzz", "--count", "1", "--seed", "1", "--out", &out],
        vec!["stats", &good],
        vec!["--help"],
        vec!["run", "--help"],
        vec!["--version"],
    ];
    for l in &to_full {
        let run = ssaref_to(l, Some(full()), None);
        holds(&run, &good, &[6], &format!("{l:?} > /dev/full"));
        assert!(run.stderr.contains("cannot write the output"), "{l:?}: {}", run.stderr);
    }
    let run = ssaref_to(&["run", &bad], None, Some(full()));
    assert_eq!(run.code, 1, "a syntax error with stderr on /dev/full");
    let run = ssaref_to(&["run", &looping, "--fuel", "1000"], None, Some(full()));
    assert_eq!(run.code, 4, "out of fuel with stderr on /dev/full");
    let run = ssaref_to(&["run", &good, "--regs", "0"], None, Some(full()));
    assert_eq!(run.code, 2, "a bad command line with stderr on /dev/full");
}

/// A campaign, a reduction or a report whose output cannot be written
/// fails before it starts; `reproduce` finds its corpus from any
/// directory. `reproduce` reads its corpus, then probes `--out`, then
/// measures: from `/tmp`, with `--out` under a regular file, exit code 6
/// naming the folder shows the corpus found and the work not started. The
/// long mode ([`long`]) also runs the whole `reproduce --tiny` from `/tmp`.
#[test]
fn unwritable_outputs_fail_before_the_work() {
    let file = write_bytes("a-file", b"not a folder\n");
    let under = format!("{file}/cases");
    let run = ssaref(&["fuzz", "--count", "1", "--seed", "1", "--out", &under]);
    holds(&run, &file, &[6], "fuzz --out under a regular file");
    assert!(run.stderr.contains("cannot write there"), "{}", run.stderr);
    let case = write_bytes("case.src", b"// regs: 2\nfn main() { return 0; }\n");
    let run = ssaref(&["reduce", &case, "--out", &under]);
    holds(&run, &file, &[6], "reduce --out under a regular file");
    assert!(run.stderr.starts_with(&under), "{}", run.stderr);
    let reproduce_from_tmp = |out: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_ssaref"))
            .args(["reproduce", "--tiny", "--out", out])
            .current_dir(std::env::temp_dir())
            .output()
            .expect("runs");
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, stderr) = reproduce_from_tmp(&under);
    assert_eq!(code, Some(6), "reproduce --out under a regular file, from /tmp: {stderr}");
    assert!(stderr.contains(&format!("{under}: cannot write there")), "{stderr}");
    if long() {
        let report = dir().join("report");
        let (code, stderr) = reproduce_from_tmp(&report.to_string_lossy());
        assert_eq!(code, Some(0), "reproduce from /tmp: {stderr}");
    }
}

/// Memory follows the program, not its value numbers: a four-line `.ssa`
/// naming `v4294967294` runs, checks and allocates in little memory: each
/// run's own resident set stays below `MAX_RSS_KIB` (its `ru_maxrss`).
#[test]
fn memory_follows_the_program_not_its_value_numbers() {
    let f =
        write_bytes("sparse.ssa", b"fn main(v10000000) {\nb0:\n    v4294967294 = const 1\n    ret v4294967294\n}\n");
    for args in [vec!["run", &f], vec!["check", &f], vec!["emit", &f, "--stage", "x86"], vec!["repro", &f]] {
        let run = ssaref(&args);
        holds(&run, &f, &[0], &format!("{args:?}"));
        if args[0] == "run" {
            assert_eq!(run.stdout, "return 1\n");
        }
        assert!(run.max_rss_kib < MAX_RSS_KIB, "{args:?} reached {} KiB resident", run.max_rss_kib);
    }
}

mod campaigns;
mod command_line;
mod limits;
mod minor;
mod nesting;
mod resources;
mod targets;

//! The input of the fuzz target `command_line` (`fuzz/fuzz_targets/`): an
//! argument vector of `ssaref` and the case file it names, both built from
//! arbitrary bytes, and the contract every run must keep.
//!
//! The argument vector is a command, then positional arguments and options
//! drawn from the command line's own vocabulary (every command, every
//! option, values inside and outside their bounds, malformed numbers and
//! lists) mixed with arbitrary words. The case file is a header of `//`
//! lines (description, `regs:`, `config:`, `args:`, `expect:`, `target:`,
//! with values from the header's vocabulary or arbitrary, repeated or not)
//! over a program: a small valid one, or arbitrary text.
//!
//! What is left out keeps each run short and the process whole: the
//! campaigns (`fuzz`), the benchmarks, `reproduce`, `--max-memory` (its
//! limit holds for the rest of the process) and production compilers
//! (`--target` gets only values that name no installed target); the fuel
//! of every run is small. The fuzz target runs the command line in-process
//! and the hostile-input suite runs the same inputs through the binary
//! (`tests/suite/hostile/command_line.rs`).

use arbitrary::{Result, Unstructured};

/// The exit codes of docs/command-line.md, "Exit codes": every run of the
/// command line ends with one of them.
pub const DOCUMENTED_EXIT_CODES: [u8; 12] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 130];

/// The word of an argument vector that stands for the case file's path.
pub const CASE_FILE: &str = "@CASE";
/// The word that stands for a path in a scratch folder that does not exist
/// yet (an `--out`).
pub const SCRATCH_PATH: &str = "@SCRATCH";

/// The commands that run quickly on a small input.
const COMMANDS: [&str; 8] = ["run", "emit", "check", "repro", "reduce", "gen", "stats", "help"];

/// The options of those commands, with the values each is tried with.
const OPTIONS: [(&str, &[&str]); 27] = [
    ("--stage", &["source", "ssa", "cytron", "out-of-ssa", "alloc", "x86", "mir", "", "X86"]),
    ("--regs", &["2", "15", "1", "16", "0", "2,3", "2,2,2,2", "4,,5", "-3", "99999999999999999999", "a"]),
    ("--fuel", &["0", "1", "100", "5000", "-1", "1e3", "1000000000001"]),
    ("--route", &["ssa-ra", "out-of-ssa", "boissinot", "regalloc2", "both", "all", "none"]),
    ("--coalescing", &["value", "intersect", "sharing", "bogus"]),
    ("--liveness", &["check", "sets", "x"]),
    ("--allocator", &["linear-scan", "spill-everything", "graph"]),
    ("--out", &[SCRATCH_PATH, "/dev/full", "/proc/nonexistent/x"]),
    ("--max-tests", &["1", "3", "0", "18446744073709551616"]),
    ("--count", &["0", "1", "2", "1000001", "-1"]),
    ("--seed", &["0", "1", "18446744073709551615", "18446744073709551616", "x"]),
    ("--size", &["1", "20", "0", "10000001"]),
    ("--shape", &["structured", "gotos", "nested-loops", "wide-join", "params", "nosuch"]),
    ("--gen", &["0", "1", "2", "1000001"]),
    ("--target", &["", " , ", "nosuch", ",", "gcc,nosuch"]),
    ("--options", &["O2", "bogus", ""]),
    ("--construction", &["all-on", "plain", "bogus"]),
    ("--compare-regs", &["2", "16", "2,3"]),
    ("--passes", &[]),
    ("--listing", &[]),
    ("--all-variants", &[]),
    ("--full-checks", &[]),
    ("--no-check", &[]),
    ("--ir", &[]),
    ("--stats", &[]),
    ("--help", &[]),
    ("--version", &[]),
];

/// Words of a `config:` line.
const CONFIG_WORDS: [&str; 10] = [
    "braun=phi+scc",
    "braun=bogus",
    "ssa-ra[opt]",
    "ssa-ra[plain]",
    "ssa-ra[pmc+hoist]",
    "ra=opt",
    "out-of-ssa[sharing,check,linear-scan]",
    "out-of-ssa[x]",
    "regalloc2",
    "r3",
];

/// Small valid programs, and programs the header's `args:` may not fit.
const PROGRAMS: [&str; 5] = [
    "fn main() {\n    out 1;\n    return 2;\n}\n",
    "fn main(n) {\n    var f = 1;\n    while (n > 0) {\n        f = f * n;\n        n = n - 1;\n    }\n    out f;\n    mem[1] = f;\n    return f / (n + 1);\n}\n",
    "fn main(a, b) {\n    if (a < b) { return a % b; } else { out b; }\n    goto l;\n    l:\n    return 0;\n}\n",
    "fn main() {\n    while (1) { }\n    return 0;\n}\n",
    "fn main(v0) {\nb0:\n    v1 = const 1\n    v2 = add v0, v1\n    ret v2\n}\n",
];

/// One run of the command line: its arguments (after the program's name)
/// and the case file they may name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandLineInput {
    /// The arguments, with [`CASE_FILE`] and [`SCRATCH_PATH`] for the
    /// paths that [`CommandLineInput::arguments`] fills in.
    pub args: Vec<String>,
    /// The case file's text.
    pub case: String,
    /// Whether the case file is an SSA program (`.ssa`) rather than a
    /// source program (`.src`).
    pub ssa: bool,
}

impl CommandLineInput {
    /// The input that `data` encodes (every byte string encodes one).
    pub fn from_bytes(data: &[u8]) -> Result<CommandLineInput> {
        let mut u = Unstructured::new(data);
        let mut args = vec![pick_or_word(&mut u, &COMMANDS)?];
        if u.ratio(7, 8)? {
            args.push(CASE_FILE.to_string());
        }
        let fuel = ["run", "check", "repro", "reduce"].contains(&args[0].as_str());
        let mut has_fuel = false;
        for _ in 0..u.int_in_range(0..=6)? {
            if u.ratio(1, 8)? {
                args.push(word(&mut u)?);
                continue;
            }
            let (name, values) = *u.choose(&OPTIONS)?;
            has_fuel |= name == "--fuel";
            args.push(name.to_string());
            if !values.is_empty() {
                args.push(pick_or_word(&mut u, values)?);
            }
        }
        // A small fuel keeps a looping program short, unless the input
        // chose its own.
        if fuel && !has_fuel {
            args.extend(["--fuel".to_string(), "20000".to_string()]);
        }
        let ssa = u.ratio(1, 4)?;
        let case = case_file(&mut u, ssa)?;
        Ok(CommandLineInput { args, case, ssa })
    }

    /// The name of the case file, in a folder of the caller's.
    pub fn case_name(&self) -> &'static str {
        if self.ssa {
            "case.ssa"
        } else {
            "case.src"
        }
    }

    /// The arguments with the placeholders replaced: `case` for the case
    /// file's path, `scratch` for a path that does not exist yet.
    pub fn arguments(&self, case: &str, scratch: &str) -> Vec<String> {
        let fill = |a: &String| match a.as_str() {
            CASE_FILE => case.to_string(),
            SCRATCH_PATH => scratch.to_string(),
            _ => a.clone(),
        };
        self.args.iter().map(fill).collect()
    }
}

/// One of `words`, or (one time in eight) an arbitrary word.
fn pick_or_word(u: &mut Unstructured<'_>, words: &[&str]) -> Result<String> {
    if u.ratio(1, 8)? {
        word(u)
    } else {
        Ok(u.choose(words)?.to_string())
    }
}

/// An arbitrary word of up to 12 characters, never a placeholder nor a
/// path (no `/`: an `--out=` word must not reach outside the scratch
/// folder), and without NUL, which no argument vector can hold.
fn word(u: &mut Unstructured<'_>) -> Result<String> {
    let len = u.int_in_range(0..=12)?;
    let mut w = String::new();
    for _ in 0..len {
        w.push(u.arbitrary::<char>()?);
    }
    Ok(w.replace(['@', '/', '\0'], "_"))
}

/// A case file: a header of up to eight lines over a program.
fn case_file(u: &mut Unstructured<'_>, ssa: bool) -> Result<String> {
    let mut text = String::new();
    for _ in 0..u.int_in_range(0..=8)? {
        text.push_str("// ");
        text.push_str(&header_line(u)?);
        text.push('\n');
    }
    if u.ratio(3, 4)? {
        let program = if ssa { PROGRAMS[4] } else { *u.choose(&PROGRAMS[..4])? };
        text.push_str(program);
    } else {
        text.push_str(&String::from_utf8_lossy(u.bytes(u.len().min(512))?));
    }
    Ok(text)
}

/// One line of a header, without its `// `.
fn header_line(u: &mut Unstructured<'_>) -> Result<String> {
    let repeat = if u.ratio(1, 8)? { u.int_in_range(2..=600)? } else { 1 };
    let (key, values): (&str, Vec<String>) = match u.int_in_range(0..=6)? {
        0 => ("regs:", vec![pick_or_word(u, &["2", "3", "15", "16", "1", "x"])?]),
        1 => ("config:", vec![pick_or_word(u, &CONFIG_WORDS)?, pick_or_word(u, &CONFIG_WORDS)?]),
        2 => ("args:", vec![pick_or_word(u, &["0", "3", "-4", "9223372036854775808", "x"])?]),
        3 => ("expect:", Vec::new()),
        4 => ("", vec![pick_or_word(u, &["return 2", "1", "trap divide-error", "mem[1] = 6", "return 007"])?]),
        5 => ("target:", vec![pick_or_word(u, &["gcc O2", "nosuch O2", "llvm", ""])?]),
        _ => ("", vec![word(u)?]),
    };
    let mut line = key.to_string();
    for _ in 0..repeat {
        for v in &values {
            line.push(' ');
            line.push_str(v);
        }
    }
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_string_encodes_an_input_that_names_its_placeholders() {
        let empty = CommandLineInput::from_bytes(&[]).expect("an input");
        assert_eq!(empty.args.len(), 2, "a command and the case file: {empty:?}");
        let data: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        let input = CommandLineInput::from_bytes(&data).expect("an input");
        let args = input.arguments("/tmp/c.src", "/tmp/out");
        assert!(!args.iter().any(|a| a == CASE_FILE || a == SCRATCH_PATH), "{args:?}");
    }
}

//! The library's errors are typed end to end: every failure a pass or a
//! checker reports is a variant with its data (block, value, register,
//! instruction, K), up to `PassError`, so a caller matches on what failed
//! instead of reading a message. Two shapes would let a failure lose its
//! type again, and no file of the library (`src/` but the command line in
//! `src/cli/`, and the oracle in `interp/`) may have them:
//! - a catch-all variant: a variant named `Message`, `Other` or `Msg`
//!   whose only field is a `String`, or a tuple variant `(String)` of an
//!   enum named `…Error`;
//! - a `Result` whose error is a `String`.
//!
//! The detector reads the code with comments and string literals removed
//! (`layout::strip`) and is tested on made-up text at the end of this file.

use super::layout::{load, strip};

/// The variants of the detector's second shape that still carry a
/// message, as `file: Enum::Variant`. They hold the text of input (a shard
/// argument, a `.ssa` case's verifier message), of another crate or program
/// (plotters, Unicorn, Cranelift, a target's compiler or process), or are
/// catch-alls still to be given variants. The list may only shrink: an
/// entry that no longer occurs fails the test, and so does any variant not
/// on it.
const NOT_YET_TYPED: &[&str] = &[
    "src/campaign/shard.rs: catch-all variant ShardError::NotAFraction",
    "src/evaluation/eval_error.rs: catch-all variant EvalError::Plot",
    "src/frontend/ssa_case_file.rs: catch-all variant SsaCaseError::Invalid",
    "src/machine/emulator.rs: catch-all variant EmuError::Fault",
    "src/targets/cranelift/cranelift_run.rs: catch-all variant CraneliftError::Compile",
    "src/targets/cranelift/cranelift_run.rs: catch-all variant CraneliftError::Run",
    "src/targets/target.rs: catch-all variant TargetError::BadOptions",
    "src/targets/target.rs: catch-all variant TargetError::Unsupported",
    "src/targets/target.rs: catch-all variant TargetError::Crash",
    "src/targets/target.rs: catch-all variant TargetError::Io",
    "src/types/oracle.rs: catch-all variant OracleError::Malformed",
    "src/types/oracle.rs: catch-all variant OracleError::Other",
];

/// The names of a catch-all variant.
const CATCH_ALL_NAMES: &[&str] = &["Message", "Other", "Msg"];

/// The index just past the bracket that closes the one opening at `open`
/// (`(`, `[`, `{` or `<`), counting only brackets of the same kind; the
/// `>` of `->` and `=>` does not close.
fn close(code: &[u8], open: usize) -> usize {
    let (o, c) = match code[open] {
        b'(' => (b'(', b')'),
        b'[' => (b'[', b']'),
        b'{' => (b'{', b'}'),
        _ => (b'<', b'>'),
    };
    let mut depth = 0usize;
    let mut i = open;
    while i < code.len() {
        let arrow = c == b'>' && i > 0 && (code[i - 1] == b'-' || code[i - 1] == b'=');
        if code[i] == o {
            depth += 1;
        } else if code[i] == c && !arrow {
            depth -= 1;
            if depth == 0 {
                return i + 1;
            }
        }
        i += 1;
    }
    code.len()
}

/// `text` split at the commas outside any bracket, each part trimmed; empty
/// parts (a trailing comma) are left out.
fn top_level_split(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        let arrow = c == b'>' && i > 0 && (b[i - 1] == b'-' || b[i - 1] == b'=');
        match c {
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'>' if !arrow => depth -= 1,
            b',' if depth == 0 => {
                parts.push(text[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(text[start..].trim().to_string());
    parts.retain(|p| !p.is_empty());
    parts
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The start of every whole-word occurrence of `word` in `code`.
fn word_at(code: &str, word: &str) -> Vec<usize> {
    let b = code.as_bytes();
    code.match_indices(word)
        .map(|(i, _)| i)
        .filter(|&i| (i == 0 || !is_ident(b[i - 1])) && b.get(i + word.len()).is_none_or(|&c| !is_ident(c)))
        .collect()
}

/// A variant's text without its attributes (`#[…]`).
fn without_attributes(variant: &str) -> String {
    let b = variant.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'#' && b.get(i + 1) == Some(&b'[') {
            i = close(b, i + 1);
        } else {
            let c = variant[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out.trim().to_string()
}

/// The catch-all variants of the enums in `code` (stripped), as
/// `Enum::Variant`.
fn catch_all_variants(code: &str) -> Vec<String> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    for at in word_at(code, "enum") {
        let rest = &code[at + 4..];
        let name: String = rest.trim_start().chars().take_while(|&c| c.is_alphanumeric() || c == '_').collect();
        let Some(open) = code[at..].find('{').map(|o| at + o) else { continue };
        let body = &code[open + 1..close(b, open) - 1];
        for variant in top_level_split(body) {
            let variant = without_attributes(&variant);
            let vname: String = variant.chars().take_while(|&c| c.is_alphanumeric() || c == '_').collect();
            let fields = variant[vname.len()..].trim();
            let only_string = |inner: &str| {
                let parts = top_level_split(inner);
                parts.len() == 1 && parts[0].rsplit(':').next().is_some_and(|t| t.trim() == "String")
            };
            let tuple_string = fields.starts_with('(') && fields.ends_with(')') && {
                let parts = top_level_split(&fields[1..fields.len() - 1]);
                parts.len() == 1 && parts[0] == "String"
            };
            let struct_string =
                fields.starts_with('{') && fields.ends_with('}') && only_string(&fields[1..fields.len() - 1]);
            let named_catch_all = CATCH_ALL_NAMES.contains(&vname.as_str()) && (tuple_string || struct_string);
            if named_catch_all || (name.ends_with("Error") && tuple_string) {
                out.push(format!("{name}::{vname}"));
            }
        }
    }
    out
}

/// Every `Result<_, String>` type in `code` (stripped), with its text.
fn string_results(code: &str) -> Vec<String> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    for at in word_at(code, "Result") {
        let open = at + "Result".len();
        if b.get(open) != Some(&b'<') {
            continue;
        }
        let end = close(b, open);
        let args = top_level_split(&code[open + 1..end - 1]);
        if args.len() == 2 && args[1] == "String" {
            out.push(code[at..end].split_whitespace().collect::<Vec<_>>().join(" "));
        }
    }
    out
}

/// Every catch-all variant and `String` error of the library, as
/// `file: what`.
fn untyped_errors() -> Vec<String> {
    let mut files = load("src", "");
    files.extend(load("interp/src", "interp/"));
    let mut bad = Vec::new();
    for file in files.iter().filter(|f| !f.path.starts_with("src/cli/")) {
        for v in catch_all_variants(&file.code) {
            bad.push(format!("{}: catch-all variant {v}", file.path));
        }
        for r in string_results(&file.code) {
            bad.push(format!("{}: {r}", file.path));
        }
    }
    bad
}

#[test]
fn no_catch_all_error_variant_and_no_string_error_in_the_library() {
    let found = untyped_errors();
    let bad: Vec<&String> = found.iter().filter(|f| !NOT_YET_TYPED.contains(&f.as_str())).collect();
    assert!(
        bad.is_empty(),
        "untyped errors in the library:\n{}",
        bad.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
    let gone: Vec<&&str> = NOT_YET_TYPED.iter().filter(|e| !found.iter().any(|f| f == *e)).collect();
    assert!(gone.is_empty(), "typed since, to remove from NOT_YET_TYPED: {gone:?}");
}

#[test]
fn detector_finds_catch_all_variants_and_string_results() {
    let code = strip(
        r#"
        /// A failure.
        pub enum PassFailure {
            Stuck { block: Block, k: usize },
            #[allow(dead_code)]
            Other(String),
        }
        enum Notice { Message { text: String }, Count(usize) }
        pub enum LowerError { Missing(Block), Unsupported(String), Pair(String, Block) }
        enum Words { Note(String) }
        // enum CommentError { Text(String) }
        fn parse(s: &str) -> Result<u32, String> { todo() }
        fn nested() -> Option<Result<Vec<(u32, u8)>, String>> { None }
        fn call(f: impl Fn(u8) -> u8) -> Result<u8, Error> { Ok(f(0)) }
        fn fine() -> io::Result<String> { let s = "Result<u8, String>"; Ok(s.into()) }
        "#,
    );
    assert_eq!(
        catch_all_variants(&code),
        ["PassFailure::Other", "Notice::Message", "LowerError::Unsupported"],
        "catch-all variants of the made-up text"
    );
    assert_eq!(
        string_results(&code),
        ["Result<u32, String>", "Result<Vec<(u32, u8)>, String>"],
        "string errors of the made-up text"
    );
}

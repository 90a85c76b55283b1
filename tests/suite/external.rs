//! Replays the findings in production compilers kept in `tests/external/`
//! (format: its README.md) and prints, for each, whether it still fails
//! with the tool at hand. A finding whose commands name a versioned LLVM
//! tool (`llc-14`, `clang-19`) is replayed on every installed LLVM version
//! (`llvm::installed_versions`), the tool's version replaced, and the test
//! says on which it still fails. A fixed tool does not fail the test; a
//! file without its header lines, or whose tool is installed but whose
//! commands cannot be started, does.

use ssaref::targets::llvm::installed_versions;
use std::path::PathBuf;
use std::process::Command;

/// A finding's header: its `run:` commands and expected output.
struct Finding {
    name: String,
    target: String,
    version: String,
    runs: Vec<String>,
    expected_stdout: Option<String>,
}

fn parse(name: &str, text: &str) -> Finding {
    let mut f = Finding {
        name: name.into(),
        target: String::new(),
        version: String::new(),
        runs: Vec::new(),
        expected_stdout: None,
    };
    let mut in_stdout = false;
    for line in text.lines() {
        let Some(rest) =
            line.strip_prefix("; ").or_else(|| line.strip_prefix("// ")).or_else(|| line.strip_prefix(" * "))
        else {
            in_stdout = false;
            continue;
        };
        if in_stdout {
            if let Some(l) = rest.strip_prefix("  ") {
                let out = f.expected_stdout.get_or_insert_with(String::new);
                out.push_str(l);
                out.push('\n');
                continue;
            }
            in_stdout = false;
        }
        if let Some(v) = rest.strip_prefix("target: ") {
            f.target = v.trim().into();
        } else if let Some(v) = rest.strip_prefix("version: ") {
            f.version = v.trim().into();
        } else if let Some(v) = rest.strip_prefix("run: ") {
            f.runs.push(v.trim().into());
        } else if rest.trim() == "expected-stdout:" {
            in_stdout = true;
            f.expected_stdout = Some(String::new());
        }
    }
    f
}

/// Runs a finding; `Ok(None)` when it no longer fails, `Ok(Some(why))`
/// when it still does, `Err` when its tool is missing.
fn replay(f: &Finding, file: &std::path::Path) -> Result<Option<String>, String> {
    let tmp = std::env::temp_dir().join(format!("ssaref-external-{}-{}", std::process::id(), f.name));
    std::fs::create_dir_all(&tmp).expect("temporary directory");
    let dir = file.parent().expect("a folder").display().to_string();
    let mut last = String::new();
    let mut result = None;
    for run in &f.runs {
        let tool = run.split_whitespace().next().unwrap_or("");
        if Command::new(tool).arg("--version").output().is_err() {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(format!("`{tool}` is not installed"));
        }
        let cmd = run
            .replace("{file}", &file.display().to_string())
            .replace("{dir}", &dir)
            .replace("{tmp}", &tmp.display().to_string());
        let out = Command::new("sh").arg("-c").arg(&cmd).current_dir(&tmp).output().expect("sh runs");
        last = String::from_utf8_lossy(&out.stdout).into_owned();
        if !out.status.success() {
            result = Some(format!("`{cmd}` ended with {}", out.status));
            break;
        }
    }
    if result.is_none() {
        if let Some(exp) = &f.expected_stdout {
            if &last != exp {
                result = Some(format!("the output differs from the expected one:\n{last}"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(result)
}

/// The LLVM tools whose name carries the version (`llc-14`).
const VERSIONED_TOOLS: [&str; 3] = ["llc", "clang", "opt"];

/// The versioned LLVM tools the commands of `f` name, as `(tool, N)`.
fn versioned_tools(f: &Finding) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for run in &f.runs {
        for word in run.split_whitespace() {
            let Some((tool, n)) = word.rsplit_once('-') else { continue };
            if VERSIONED_TOOLS.contains(&tool) && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
                found.push((tool.to_string(), n.to_string()));
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// The replays of `f`: itself, or one per installed LLVM version with
/// every versioned tool of its commands at that version, each with a
/// label (`LLVM 19`).
fn variants(f: &Finding) -> Vec<(String, Finding)> {
    let tools = versioned_tools(f);
    if tools.is_empty() {
        let same = Finding { runs: f.runs.clone(), ..parse(&f.name, "") };
        return vec![("the version at hand".into(), same)];
    }
    installed_versions()
        .into_iter()
        .map(|v| {
            let runs = f
                .runs
                .iter()
                .map(|r| {
                    let mut words: Vec<String> = r.split(' ').map(String::from).collect();
                    for w in &mut words {
                        if tools.iter().any(|(t, n)| *w == format!("{t}-{n}")) {
                            *w = format!("{}-{v}", w.rsplit_once('-').map_or("", |(t, _)| t));
                        }
                    }
                    words.join(" ")
                })
                .collect();
            let g = Finding {
                name: format!("{}-llvm{v}", f.name),
                runs,
                expected_stdout: f.expected_stdout.clone(),
                ..parse(&f.name, "")
            };
            (format!("LLVM {v}"), g)
        })
        .collect()
}

#[test]
fn versioned_llvm_tools_are_replayed_on_each_installed_version() {
    let f = parse("x.ll", "; target: llvm\n; run: llc-14 -O2 {file} -o {tmp}/out.s\n; run: gcc-12 {tmp}/out.s\n");
    assert_eq!(versioned_tools(&f), vec![("llc".to_string(), "14".to_string())]);
    for (label, g) in variants(&f) {
        let v = label.strip_prefix("LLVM ").expect("one replay per LLVM version");
        assert_eq!(g.runs[0], format!("llc-{v} -O2 {{file}} -o {{tmp}}/out.s"));
        assert_eq!(g.runs[1], "gcc-12 {tmp}/out.s", "only LLVM's tools change version");
    }
}

#[test]
fn every_external_finding_replays_and_says_whether_it_still_fails() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/external");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/external exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ll" || x == "c"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "tests/external holds no finding");
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&file).expect("readable");
        let f = parse(&name, &text);
        assert!(
            !f.target.is_empty() && !f.version.is_empty() && !f.runs.is_empty(),
            "{name}: needs target:, version: and run: lines"
        );
        for key in ["expected:", "actual:", "analysis:"] {
            assert!(text.contains(key), "{name}: needs an `{key}` line");
        }
        for (label, g) in variants(&f) {
            match replay(&g, &file) {
                Ok(Some(why)) => eprintln!(
                    "external {name} ({}): STILL FAILS with {label} (recorded: {}): {why}",
                    f.target, f.version
                ),
                Ok(None) => eprintln!(
                    "external {name} ({}): NO LONGER FAILS with {label} (it failed with {})",
                    f.target, f.version
                ),
                Err(e) => eprintln!("external {name} with {label}: SKIPPED: {e}"),
            }
        }
    }
}

//! Replays the findings in production compilers kept in `tests/external/`
//! (format: its README.md) and prints, for each, whether it still fails
//! with the tool at hand. A fixed tool does not fail the test; a file
//! without its header lines, or whose tool is installed but whose commands
//! cannot be started, does.

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
        match replay(&f, &file) {
            Ok(Some(why)) => eprintln!(
                "external {name} ({}): STILL FAILS with the version at hand (recorded: {}): {why}",
                f.target, f.version
            ),
            Ok(None) => eprintln!(
                "external {name} ({}): NO LONGER FAILS with the version at hand (it failed with {})",
                f.target, f.version
            ),
            Err(e) => eprintln!("external {name}: SKIPPED: {e}"),
        }
    }
}

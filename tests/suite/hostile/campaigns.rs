//! Campaigns with hostile settings: counts are bounded, a case file's
//! header stays a header whatever its fields hold, and two campaigns that
//! share `--out` never take each other's case files.

use super::{dir, holds, ssaref};
use ssaref::campaign::failure_case::write_new_case;
use ssaref::frontend::case_file::CaseFile;

#[test]
fn target_batches_are_bounded() {
    for batch in ["0", "4097", "18446744073709551615"] {
        let run = ssaref(&["fuzz", "--target", "gcc", "--batch", batch, "--count", "2"]);
        holds(&run, "fuzz", &[2], &format!("fuzz --target gcc --batch {batch}"));
    }
}

#[test]
fn header_fields_are_escaped() {
    let path = "out\nfn main() { return 666; }\n// x";
    let text = "fn main() {\n    return 1;\n}\n";
    let mut case = CaseFile::parse(text).expect("a case");
    case.description = vec![format!("reproduce: ssaref repro {path}/case-1.src")];
    let rendered = case.render();
    let back = CaseFile::parse(&rendered).expect("the rendered case parses");
    assert_eq!(back.description.len(), 1, "{rendered}");
    assert!(back.description[0].contains("\\n"), "{rendered}");
    assert_eq!(back.program, case.program, "{rendered}");
}

#[test]
fn campaigns_sharing_out_never_take_each_others_cases() {
    let out = dir().join("shared-out");
    let first = write_new_case(&out, "case-7", "src", |p| format!("// {}\n", p.display())).expect("first");
    let second = write_new_case(&out, "case-7", "src", |p| format!("// {}\n", p.display())).expect("second");
    assert_ne!(first, second);
    for p in [&first, &second] {
        assert_eq!(std::fs::read_to_string(p).expect("read"), format!("// {}\n", p.display()));
    }
    // No temporary file is left beside them.
    let names: Vec<_> = std::fs::read_dir(&out).expect("dir").map(|e| e.expect("entry").file_name()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

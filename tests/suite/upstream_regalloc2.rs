//! `upstream/regalloc2`: the patched crate that the feature
//! `regalloc2-patched` builds is exactly the pristine crate with the patch
//! series applied in order (`apply.sh --check`), so that what the route
//! runs is what the patches say.

use super::layout::root;
use std::process::Command;

#[test]
fn patched_crate_is_the_pristine_crate_with_the_patches_applied() {
    let script = root().join("upstream/regalloc2/apply.sh");
    let out = Command::new("bash").arg(&script).arg("--check").output().expect("bash runs");
    assert!(
        out.status.success(),
        "apply.sh --check failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let patches = std::fs::read_dir(root().join("upstream/regalloc2/patches")).unwrap().count();
    assert_eq!(patches, 3, "the series has three patches");
}

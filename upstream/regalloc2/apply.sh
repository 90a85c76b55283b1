#!/usr/bin/env bash
# Builds the patched crate: the pristine regalloc2 0.15.2 with the patches
# of patches/ applied in order.
#
#   bash upstream/regalloc2/apply.sh DIR     writes the patched crate to DIR
#   bash upstream/regalloc2/apply.sh --check checks that patched/ is exactly
#                                            that (exit 1 and a diff if not)
#
# patched/ is checked in because Cargo reads the manifest of every path
# dependency, optional or not, whenever it resolves the workspace: the
# default build needs the directory to exist. Git stores a file identical in
# both trees once, so the copy adds only the files the patches change.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pristine="$here/regalloc2-0.15.2"

apply_to() {
    local dest="$1"
    rm -rf "$dest"
    mkdir -p "$dest"
    dest="$(cd "$dest" && pwd)"
    cp -a "$pristine/." "$dest/"
    local p
    for p in "$here"/patches/*.patch; do
        # The ceiling keeps git from finding an enclosing repository, in
        # which `git apply` would take the paths as relative to its top.
        (cd "$dest" && GIT_CEILING_DIRECTORIES="$(dirname "$dest")" git apply "$p") || {
            echo "apply.sh: $p does not apply" >&2
            exit 1
        }
    done
}

case "${1:-}" in
    --check)
        tmp="$(mktemp -d)"
        trap 'rm -rf "$tmp"' EXIT
        apply_to "$tmp/regalloc2"
        if diff -r "$tmp/regalloc2" "$here/patched" >"$tmp/diff"; then
            echo "apply.sh: patched/ is the pristine crate with patches/ applied"
        else
            cat "$tmp/diff"
            echo "apply.sh: patched/ differs from the pristine crate with patches/ applied" >&2
            exit 1
        fi
        ;;
    "" | -*)
        echo "usage: apply.sh DIR | apply.sh --check" >&2
        exit 2
        ;;
    *)
        apply_to "$1"
        ;;
esac

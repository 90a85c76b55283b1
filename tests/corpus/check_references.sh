#!/usr/bin/env bash
# Cross-checks the expected outcomes of tests/corpus/*.src outside ssaref.
#
# For each program NAME.src: the expect block of its header must equal what
# the Python 3 reference reference/NAME.py prints (an independent
# implementation of the same algorithm, with the language's 64-bit
# semantics written out in reference/lang.py), and what ssaref's AST
# interpreter prints (`ssaref run --stage source`: the trace and the end;
# `run` does not print mem, so the mem lines are compared by `cargo test
# --test suite corpus`). With --check, also `ssaref check` (every stage, every
# checker) must agree, and its full outcome (mem included) must equal the
# header.
#
# Usage: tests/corpus/check_references.sh [--check] [NAME...]
# Environment: SSAREF (default target/release/ssaref), PYTHON (default python3).
set -u
cd "$(dirname "$0")"
root=../..
ssaref=${SSAREF:-$root/target/release/ssaref}
python=${PYTHON:-python3}
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ next to the references
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
if [ ! -x "$ssaref" ]; then
    echo "no ssaref binary at $ssaref (cargo build --release, or set SSAREF)" >&2
    exit 2
fi
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    for f in *.src; do names+=("${f%.src}"); done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for name in "${names[@]}"; do
    src=$name.src
    # The expect block: the comment lines after `// expect:`, up to the code.
    awk 'f && /^\/\// { sub(/^\/\/ ?/, ""); print; next } f { exit } /^\/\/ expect:$/ { f = 1 }' "$src" >"$tmp/expect"
    read -r -a args <<<"$(sed -n 's|^// args:||p' "$src" | head -1)"
    status=ok
    if ! "$python" "reference/$name.py" >"$tmp/python" 2>"$tmp/python.err"; then
        status="python reference failed: $(tail -1 "$tmp/python.err")"
    elif ! diff -u --label "$src (header)" --label "reference/$name.py" "$tmp/expect" "$tmp/python" >"$tmp/diff"; then
        status="header != python"
        cat "$tmp/diff"
    else
        "$ssaref" run --stage source "$src" "${args[@]}" >"$tmp/run" 2>&1
        grep -v '^mem\[' "$tmp/python" >"$tmp/python.nomem"
        if ! diff -u --label "reference/$name.py" --label "ssaref run --stage source" "$tmp/python.nomem" "$tmp/run" >"$tmp/diff"; then
            status="python != ssaref run"
            cat "$tmp/diff"
        elif [ $check = 1 ]; then
            if ! "$ssaref" check "$src" "${args[@]}" >"$tmp/check" 2>"$tmp/check.err"; then
                status="ssaref check failed: $(head -3 "$tmp/check.err" | tr '\n' ' ')"
            else
                stages=$(grep -c '^agree ' "$tmp/check")
                grep -v -e '^agree ' -e '^calls not supported yet ' "$tmp/check" >"$tmp/check.outcome"
                if ! diff -u --label "reference/$name.py" --label "ssaref check" "$tmp/python" "$tmp/check.outcome" >"$tmp/diff"; then
                    status="python != ssaref check"
                    cat "$tmp/diff"
                else
                    status="ok ($stages stages agree)"
                fi
            fi
        fi
    fi
    printf '%-28s %s\n' "$name" "$status"
    case $status in ok*) ;; *) fail=1 ;; esac
done
exit $fail

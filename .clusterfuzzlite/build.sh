#!/bin/bash -eu
# Builds every cargo-fuzz target of fuzz/ and copies it, with its seed
# corpus and dictionary where there is one, to $OUT, as OSS-Fuzz and
# ClusterFuzzLite expect. The base image sets SANITIZER (address, memory,
# undefined, coverage, none...) and a nightly toolchain; run by hand on a
# stable toolchain with RUSTC_BOOTSTRAP=1 SANITIZER=none (README, "Fuzzing
# beyond one machine").
if [ -n "${SRC:-}" ] && [ -d "$SRC/ssaref/fuzz" ]; then
    cd "$SRC/ssaref/fuzz" # in the image: the Dockerfile copies the tree there
else
    cd "$(dirname "$0")/../fuzz" # by hand, from a checkout
fi
: "${OUT:?set OUT to the directory the fuzzers go to}"

case "${SANITIZER:-address}" in
    address | memory | thread | leak) sanitizer="${SANITIZER}" ;;
    # cargo-fuzz has no `undefined` or `coverage` sanitizer; build without
    # one (coverage builds get their flags from RUSTFLAGS).
    *) sanitizer=none ;;
esac

targets=$(cargo fuzz list)
cargo fuzz build -O --sanitizer "$sanitizer"
target_dir="target/x86_64-unknown-linux-gnu/release"
for t in $targets; do
    cp "$target_dir/$t" "$OUT/$t"
    if [ -d "seeds/$t" ]; then
        (cd "seeds/$t" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
    fi
done
# The parse target has a dictionary of the language's tokens.
cp parse.dict "$OUT/parse.dict"
printf '[libfuzzer]\ndict = parse.dict\n' > "$OUT/parse.options"

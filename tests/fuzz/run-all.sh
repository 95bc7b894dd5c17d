#!/usr/bin/env bash
# Fuzzes every target of tests/fuzz for a bounded time, one after the other (README.md).
#
#   tests/fuzz/run-all.sh [--total SECONDS] [--build DIR] [TARGET...]
#
# The targets share --total seconds (default 240, within CI's 5 minutes), each fuzzing from a
# copy of its corpus/<target>/ (so what it finds does not grow the checked-in corpus), with
# <target>.dict when there is one. A crash, a leak, a timeout (an input taking over 10 s) or
# running out of memory (2 GiB) fails the run: the input is copied into corpus/<target>/ (commit
# it with the fix: ctest replays it from then on) and into DIR/fuzz-artifacts/, and the script
# exits 1 once every target has run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
total=240
build="$source_dir/build/fuzz"
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --total) total=$2; shift 2 ;;
        --build) build=$(cd "$2" && pwd); shift 2 ;;
        -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "run-all.sh: unknown option $1" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
if [ ${#targets[@]} -eq 0 ]; then
    for dir in "$here"/corpus/*/; do
        targets+=("$(basename "$dir")")
    done
fi
for target in "${targets[@]}"; do
    [ -x "$build/tests/fuzz/$target" ] || {
        echo "run-all.sh: no $build/tests/fuzz/$target: cmake --preset fuzz && cmake --build --preset fuzz" >&2
        exit 2
    }
done
each=$((total / ${#targets[@]}))
[ "$each" -ge 1 ] || each=1

artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$source_dir/tests/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:suppressions=$here/ubsan.supp}"
export LANG=C.UTF-8

failed=()
for target in "${targets[@]}"; do
    mkdir -p "$work/$target/corpus" "$work/$target/found"
    cp "$here/corpus/$target/"* "$work/$target/corpus/" 2>/dev/null || true
    options=(-max_total_time="$each" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$work/$target/found/"
        -print_final_stats=1)
    [ -f "$here/$target.dict" ] && options+=(-dict="$here/$target.dict")
    echo "+ $target ${options[*]/#-artifact_prefix=*/} corpus"
    set +e
    (cd "$work/$target" && "$build/tests/fuzz/$target" "${options[@]}" corpus) >"$work/$target/log" 2>&1
    status=$?
    set -e
    grep -E '^(#[0-9]+[[:space:]]+DONE|Done [0-9]+ runs|stat::number_of_executed_units)' "$work/$target/log" || true
    if [ "$status" -ne 0 ]; then
        failed+=("$target")
        echo "run-all.sh: $target failed (exit status $status):" >&2
        grep -E -A40 '^==[0-9]+==ERROR|runtime error|^ALARM|deadly signal|out-of-memory' "$work/$target/log" | head -80 >&2 || tail -40 "$work/$target/log" >&2
        for input in "$work/$target/found/"*; do
            [ -f "$input" ] || continue
            name=$(basename "$input")
            cp "$input" "$artifacts/$target-$name"
            cp "$input" "$here/corpus/$target/$name"
            echo "run-all.sh: kept the input as tests/fuzz/corpus/$target/$name (and $artifacts/$target-$name)" >&2
        done
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "run-all.sh: failed: ${failed[*]}" >&2
    exit 1
fi
echo "run-all.sh: ${#targets[@]} targets fuzzed for ${each} s each, nothing found"

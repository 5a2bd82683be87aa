#!/bin/sh
# Type-checks each file of Tests/Misuse against the EventKitSwift module built
# by `swift build` (in .build/debug): a file whose first line is
# `// error: <text>` must fail with that text among its errors, one whose
# first line is `// compiles: ...` must type-check cleanly. Keys.swift, the
# keys they use, goes with each. Usage: Scripts/check-misuse.sh [swiftc]
set -u
swiftc=${1:-swiftc}
build=.build/debug
flags="-swift-version 6 -I $build/Modules
    -Xcc -fmodule-map-file=$build/CDispatchCore.build/module.modulemap
    -Xcc -fmodule-map-file=Sources/CDispatchCoreBinding/module.modulemap
    -Xcc -fmodule-map-file=Sources/CFFI/module.modulemap -Xcc -ISources/CDispatchCore/include"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0 checked=0
for check in Tests/Misuse/*.swift; do
    name=$(basename "$check")
    [ "$name" = Keys.swift ] && continue
    checked=$((checked + 1))
    # Top-level code is only allowed in main.swift.
    cp "$check" "$scratch/main.swift"
    expected=$(sed -n '1s|^// error: ||p' "$check")
    # shellcheck disable=SC2086
    if "$swiftc" -typecheck $flags Tests/Misuse/Keys.swift "$scratch/main.swift" >"$scratch/out" 2>&1; then
        if [ -n "$expected" ]; then
            echo "check-misuse: $name compiles, but must fail with: $expected" >&2
            failed=$((failed + 1))
        fi
    elif [ -z "$expected" ]; then
        echo "check-misuse: $name must compile:" >&2
        cat "$scratch/out" >&2
        failed=$((failed + 1))
    # Only the diagnostics' own lines: the source lines quoted under them
    # include the check's first line.
    elif ! grep -E '^[^ ].*: error: ' "$scratch/out" | grep -qF -- "$expected"; then
        echo "check-misuse: $name fails, but not with: $expected" >&2
        grep -E '^[^ ].*: error: ' "$scratch/out" >&2
        failed=$((failed + 1))
    fi
done
if [ "$failed" -ne 0 ]; then
    echo "check-misuse: $failed of $checked checks failed" >&2
    exit 1
fi
echo "check-misuse: $checked checks: the correct uses compile, each misuse fails as expected"

#!/usr/bin/env bash
# The lists of libffi's test files restated here (DESIGN.md, "The full C type
# set": libffi's own testsuite, restated against this API, is the measure):
# Tests/CDispatchCoreTests/libffi_<suite>_cases.txt for libffi's
# testsuite/libffi.<suite>, one line per libffi file, sorted, tab-separated:
#
#   float.c<TAB>test_libffi_call.c:float_returns_int_from_int_float_double_long_double
#   some.c<TAB>test_structs.c:one_test,test_other.c:another
#   x.c<TAB>not restated: it needs __int128
#   y.c<TAB>not restated: it tests <a libffi interface> ...; <file.c:test> checks the nearest promise
#
# Checks of every list: each line has that form; its lines are sorted (byte
# order) and name each libffi file once; each test named, restated or nearest
# promise, is defined in the named file under Tests/CDispatchCoreTests and
# registered in that file's cmocka test list (a test whose name a macro
# makes, as test_libffi_complex.c's per type, is looked for in the file
# preprocessed by $CC, cc by default); a reason is one of the two
# allowed. When LIBFFI_TESTSUITE names a checkout of libffi's testsuite
# directory, each list's file names are exactly the .c files of its
# libffi.<suite> there. Prints one line per list; fails naming the bad line.
#
#   Scripts/check-libffi-restatement.sh [TESTS_DIR]
set -euo pipefail
tests=${1:-Tests/CDispatchCoreTests}
export LC_ALL=C

shopt -s nullglob
lists=("$tests"/libffi_*_cases.txt)
if [[ ${#lists[@]} -eq 0 ]]; then
    echo "check-libffi-restatement: no libffi_*_cases.txt in $tests" >&2
    exit 1
fi

status=0
bad() { # LIST LINE_NUMBER LINE PROBLEM
    echo "check-libffi-restatement: $1:$2: $4" >&2
    echo "    $3" >&2
    status=1
}

# The test functions a file registers in its cmocka test list: the names given
# to cmocka_unit_test and its _setup, _teardown and _setup_teardown forms, and
# to any other macro of the list that takes a test's name first (table_test),
# a name on the line after its macro's included.
registered_tests() {
    awk '/struct CMUnitTest/ { inside = 1 } inside { print } inside && /};/ { inside = 0 }' "$1" | tr '\n' ' ' |
        grep -oE '\b[a-z_]+\(\s*[A-Za-z_][A-Za-z0-9_]*\s*[,)]' | sed -E 's/^[a-z_]+\(\s*//; s/\s*[,)]$//'
}

# A test file preprocessed, for tests whose names a macro makes (a cases
# header included once per type, as test_libffi_complex.c does), made once.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
root=$(cd "$(dirname "$0")/.." && pwd)
preprocessed() { # FILE: prints the preprocessed copy's path
    local out=$scratch/$(basename "$1").i
    if [[ ! -f $out ]]; then
        "${CC:-cc}" -E -P -D_GNU_SOURCE -I"$root/Sources/CDispatchCore/include" -I"$root/Sources/CDispatchCore/binding" \
            "$1" >"$out" 2>/dev/null || : >"$out"
        tr '\n' ' ' <"$out" | grep -oE 'struct CMUnitTest [^;]*;' >"$out.tests" || :
    fi
    echo "$out"
}

# Whether FILE defines the test FUNCTION, written out or made by a macro.
defines_test() { # FILE FUNCTION
    local copy
    grep -qE "^(static )?void $2\\(" "$1" && return
    copy=$(preprocessed "$1")
    grep -qE "(^|[;{}[:space:]])(static )?void $2\\(" "$copy"
}

# Whether FILE's cmocka test list runs FUNCTION, named there or by a macro
# (cmocka_unit_test names each test by its function's name).
registers_test() { # FILE FUNCTION
    local copy
    registered_tests "$1" | grep -xF "$2" >/dev/null && return
    copy=$(preprocessed "$1")
    grep -qF "\"$2\"" "$copy.tests"
}

# Checks one "file.c:function" reference; prints the problem, if any.
reference_problem() {
    local reference=$1 file function
    if [[ ! $reference =~ ^([A-Za-z0-9_]+\.c):([A-Za-z_][A-Za-z0-9_]*)$ ]]; then
        echo "\"$reference\" is not file.c:test_function"
        return
    fi
    file=${BASH_REMATCH[1]} function=${BASH_REMATCH[2]}
    if [[ ! -f $tests/$file ]]; then
        echo "$file: no such file in $tests"
    elif ! defines_test "$tests/$file" "$function"; then
        echo "$file defines no test function $function"
    elif ! registers_test "$tests/$file" "$function"; then
        echo "$file defines $function but its cmocka test list does not run it"
    fi
}

for list in "${lists[@]}"; do
    suite=$(basename "$list" _cases.txt)
    suite=libffi.${suite#libffi_}
    restated=0 not_restated=0 number=0 previous=""
    names=()
    while IFS= read -r line || [[ -n $line ]]; do
        number=$((number + 1))
        if [[ ! $line =~ ^([A-Za-z0-9_+.-]+\.c)$'\t'([^$'\t']+)$ ]]; then
            bad "$list" "$number" "$line" "not \"name.c<TAB>tests or reason\""
            continue
        fi
        name=${BASH_REMATCH[1]} what=${BASH_REMATCH[2]}
        if [[ -n $previous && ! $previous < $name ]]; then
            if [[ $previous == "$name" ]]; then
                bad "$list" "$number" "$line" "$name is listed twice"
            else
                bad "$list" "$number" "$line" "not sorted: $name comes after $previous"
            fi
        fi
        previous=$name
        names+=("$name")
        if [[ $what == "not restated: "* ]]; then
            not_restated=$((not_restated + 1))
            reason=${what#not restated: }
            if [[ $reason == "it needs __int128" ]]; then
                continue
            fi
            if [[ $reason != "it tests "* ]]; then
                bad "$list" "$number" "$line" \
                    "the reason is neither \"it needs __int128\" nor \"it tests <a libffi-internal interface> ...\""
                continue
            fi
            nearest=$(grep -oE '\b[A-Za-z0-9_]+\.c:[A-Za-z_][A-Za-z0-9_]*' <<<"$reason" || true)
            if [[ -z $nearest ]]; then
                bad "$list" "$number" "$line" \
                    "the reason names none of our tests (file.c:test_function) for the nearest promise"
            fi
            for reference in $nearest; do
                problem=$(reference_problem "$reference")
                [[ -z $problem ]] || bad "$list" "$number" "$line" "$problem"
            done
            continue
        fi
        restated=$((restated + 1))
        IFS=, read -r -a references <<<"$what"
        for reference in "${references[@]}"; do
            problem=$(reference_problem "$reference")
            [[ -z $problem ]] || bad "$list" "$number" "$line" "$problem"
        done
    done <"$list"

    if [[ -n ${LIBFFI_TESTSUITE:-} ]]; then
        directory=$LIBFFI_TESTSUITE/$suite
        if [[ ! -d $directory ]]; then
            echo "check-libffi-restatement: LIBFFI_TESTSUITE=$LIBFFI_TESTSUITE has no $suite directory" >&2
            status=1
        else
            listed=$(printf '%s\n' "${names[@]}" | sort -u)
            present=$(cd "$directory" && printf '%s\n' *.c | sort -u)
            missing=$(comm -13 <(echo "$listed") <(echo "$present"))
            extra=$(comm -23 <(echo "$listed") <(echo "$present"))
            if [[ -n $missing ]]; then
                echo "check-libffi-restatement: $list lists no line for these files of $directory:" >&2
                sed 's/^/    /' <<<"$missing" >&2
                status=1
            fi
            if [[ -n $extra ]]; then
                echo "check-libffi-restatement: $list lists files $directory does not have:" >&2
                sed 's/^/    /' <<<"$extra" >&2
                status=1
            fi
        fi
    fi
    echo "$suite: $number files, $restated restated, $not_restated not restated"
done
exit $status

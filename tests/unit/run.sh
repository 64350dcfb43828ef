#!/usr/bin/env bash
# run.sh - build the unit tests' fixtures (real Go binaries and reference
# answers from the Go toolchain, tests/unit/fixtures/*.sh), then run each
# cmocka test binary given on the command line with GH_FIXTURES set.
set -uo pipefail
cd "$(dirname "$0")/../.."
export GH_FIXTURES=${GH_FIXTURES:-$PWD/build/fixtures}
mkdir -p "$GH_FIXTURES"
for f in tests/unit/fixtures/*.sh; do
	[ -e "$f" ] || continue
	bash "$f" "$GH_FIXTURES" || { echo "unit: fixture $f failed" >&2; exit 1; }
done
pass=0 fail=0
for t in "$@"; do
	if "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "unit: FAIL $t" >&2; fi
done
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

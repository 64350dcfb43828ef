#!/usr/bin/env bash
# matrix.sh - the VM matrix from run.sh's verdicts file (lines "KERNEL
# CASE PASS|FAIL WHY"): one row a case, one column a kernel (pass;
# pass:refused, the documented refusal of a kernel too old for it; FAIL;
# or - when that kernel has no such case), then every failure with its
# reason and where its files are.
#
#   tests/vm/matrix.sh VERDICTS KERNEL...
set -uo pipefail
v=${1:?usage: matrix.sh VERDICTS KERNEL...}
shift
awk -v ks="$*" '
	BEGIN { nk = split(ks, k, " ") }
	{ key = $2; if (!(key in seen)) { seen[key] = 1; rows[++nr] = key }
	  r[$1 SUBSEP key] = ($3 != "PASS" ? "FAIL" : /refused below/ ? "pass:refused" : "pass") }
	END {
		w = 4; for (i = 1; i <= nr; i++) if (length(rows[i]) > w) w = length(rows[i])
		printf "%-" w "s", "case"; for (j = 1; j <= nk; j++) printf "  %-14s", k[j]; printf "\n"
		for (i = 1; i <= nr; i++) {
			printf "%-" w "s", rows[i]
			for (j = 1; j <= nk; j++) { c = k[j] SUBSEP rows[i]; printf "  %-14s", (c in r) ? r[c] : "-" }
			printf "\n"
		}
	}' "$v"
awk '$3 == "FAIL" { k = $1; c = $2; $1 = $2 = $3 = ""; sub(/^ +/, "");
	# boot, guest, setup and arm64-build have no files of their own.
	f = (c ~ /^(boot|guest|setup|arm64-build)$/) ? "console.log" : c
	printf "FAIL %s %s: %s (build/vm/results/%s/%s)\n", k, c, substr($0, 1, 400), k, f }' "$v"

#!/usr/bin/env bash
# Runs each named make target (a part of `make test`) in turn, going on past
# a failed one, so one flaky part does not hide the rest. At the end it prints
# each part's result and time, and exits 1 if any part failed.
#
# usage: scripts/test_parts.sh <target>...
set -uo pipefail

[ $# -gt 0 ] || { echo "usage: $0 <target>..." >&2; exit 2; }
make=${MAKE:-make}
results=()
failed=0
for part in "$@"; do
	echo "== make $part"
	start=$SECONDS
	if "$make" --no-print-directory "$part"; then
		status=pass
	else
		status=FAIL
		failed=$((failed + 1))
	fi
	results+=("$(printf '%-4s  %-18s %5ds' "$status" "$part" $((SECONDS - start)))")
done

echo
echo "== make test: $(( $# - failed )) of $# parts passed"
printf '  %s\n' "${results[@]}"
[ "$failed" -eq 0 ]

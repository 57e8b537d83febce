#!/usr/bin/env bash
# The JSON repair comparison, one script, one machine, one run: generate the
# corpus (bench/corpus.go), check and benchmark toolguard's RepairJSON beside
# github.com/kaptinlin/jsonrepair and encoding/json (bench/jsonrepair_test.go),
# then npm jsonrepair and JSON.parse on the same corpus (bench/npm/bench.mjs),
# and print the figures together.
#
# Targets: broken input ≥ 3× kaptinlin's MB/s; valid input ≤ 1.5× the time
# of encoding/json decoding into any.
#
# usage: bench/run.sh            (BENCHTIME=3s bench/run.sh for steadier figures)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
benchtime=${BENCHTIME:-1s}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"

echo "== machine: $(go version), node $(node --version), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"

echo "== corpus"
go run ./bench/gencorpus "$work/corpus.jsonl"

echo "== fidelity (go test -run TestRepairFidelity)"
go test -count=1 -run '^TestRepairFidelity$' -v ./bench/ | sed -n 's/^        //p'

echo "== go test -bench Repair (benchtime $benchtime)"
go test -run '^$' -bench 'Repair' -benchmem -benchtime "$benchtime" ./bench/ | tee "$work/go.txt"

echo "== npm jsonrepair"
(cd bench/npm && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
ms=$(awk -v t="$benchtime" 'BEGIN { if (t ~ /ms$/) print t+0; else if (t ~ /s$/) print (t+0)*1000; else print 1000 }')
BENCHTIME_MS=$ms node bench/npm/bench.mjs "$work/corpus.jsonl" | tee "$work/npm.txt"

echo
echo "== summary: MB/s of input (1 MB = 1e6 bytes), whole sets"
awk '
	# go lines: name-GOMAXPROCS  N  ns/op  MB/s ...; npm lines: name N ns/op MB/s
	/^BenchmarkRepair(Broken|Valid)\// {
		name = $1; sub(/-[0-9]+$/, "", name); sub(/^BenchmarkRepair/, "", name)
		for (i = 2; i <= NF; i++) if ($i == "MB/s") mbps[name] = $(i-1)
		order[++n] = name
	}
	/^BenchmarkRepairKinds\// {
		name = $1; sub(/-[0-9]+$/, "", name); sub(/^BenchmarkRepairKinds\//, "", name)
		kind = substr(name, 1, index(name, "/") - 1); side = substr(name, index(name, "/") + 1)
		for (i = 2; i <= NF; i++) if ($i == "MB/s") km[kind, side] = $(i-1)
		if (!(kind in kseen)) { kseen[kind] = 1; korder[++nk] = kind }
	}
	/^BenchmarkRepairRatios/ {
		for (i = 2; i <= NF; i++) if ($i ~ /^(broken|valid)_/) ratio[$i] = $(i-1)
	}
	END {
		for (s = 1; s <= 2; s++) {
			set = s == 1 ? "Broken" : "Valid"
			for (k = 1; k <= n; k++) {
				name = order[k]
				split(name, p, "/")
				if (p[1] != set || seen[name]++) continue
				side = substr(name, length(p[1]) + 2)
				printf "  %-7s %-28s %9.2f MB/s\n", tolower(p[1]), side, mbps[name]
			}
		}
		ns = split("toolguard kaptinlin kaptinlin+decode encoding/json npm-jsonrepair JSON.parse", sides, " ")
		printf "\n== per kind, MB/s\n  %-14s", "kind"
		for (j = 1; j <= ns; j++) printf " %16s", sides[j]
		printf "\n"
		for (k = 1; k <= nk; k++) {
			printf "  %-14s", korder[k]
			for (j = 1; j <= ns; j++) printf " %16s", ((korder[k], sides[j]) in km) ? km[korder[k], sides[j]] : "-"
			printf "\n"
		}
		tg = mbps["Broken/toolguard"]
		printf "\n== targets (× = toolguard throughput ÷ the other side; time ratios: toolguard ÷ the other side)\n"
		row("broken  toolguard ÷ kaptinlin MB/s", tg / mbps["Broken/kaptinlin"], "×", "separate benchmarks; target ≥ 3")
		row("broken  toolguard ÷ kaptinlin MB/s, interleaved", ratio["broken_speedup_vs_kaptinlin"], "×", "BenchmarkRepairRatios; target ≥ 3")
		row("broken  toolguard ÷ kaptinlin+decode, interleaved", ratio["broken_speedup_vs_kaptinlin+decode"], "×", "")
		row("broken  toolguard ÷ kaptinlin where it succeeds", ratio["broken_speedup_vs_kaptinlin_where_it_succeeds"], "×", "interleaved, docs kaptinlin repairs")
		if (mbps["Broken/npm-jsonrepair"] > 0) {
			row("broken  toolguard ÷ npm jsonrepair", tg / mbps["Broken/npm-jsonrepair"], "×", "")
			row("broken  toolguard ÷ npm jsonrepair+JSON.parse", tg / mbps["Broken/npm-jsonrepair+JSON.parse"], "×", "")
		}
		row("valid   toolguard time ÷ encoding/json", mbps["Valid/encoding/json"] / mbps["Valid/toolguard"], "", "separate benchmarks; target ≤ 1.5")
		row("valid   toolguard time ÷ encoding/json, interleaved", ratio["valid_vs_encoding_json"], "", "BenchmarkRepairRatios; target ≤ 1.5")
		row("valid   toolguard time ÷ json.Unmarshal", mbps["Valid/json.Unmarshal"] / mbps["Valid/toolguard"], "", "float64 numbers")
		if (mbps["Valid/JSON.parse"] > 0)
			row("valid   toolguard time ÷ node JSON.parse", mbps["Valid/JSON.parse"] / mbps["Valid/toolguard"], "", "")
	}
	function row(label, v, unit, note) { printf "  %-52s %7.3f%-2s %s\n", label, v, unit, note }
' "$work/go.txt" "$work/npm.txt"

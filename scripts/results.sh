#!/usr/bin/env bash
# Regenerates docs/results.md: every method on the paper's benchmarks, with
# the exact commands that produced each table. Needs the benchmark data
# (ONTIME_DATA or ./data).
#
#   scripts/results.sh [BIN] [SECTION...]
#
# With sections named (twobranch ringtown sfn anaheim paper rollout cdot ablations
# history), only those are recomputed and the others are kept from the
# current docs/results.md (each section sits between <!-- results:NAME -->
# markers), e.g. after retraining one network's model; a section not there
# yet is computed too (RESULTS_PLACEHOLDER=1 leaves a note instead).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/ontime}
shift || true
export ONTIME_DATA=${ONTIME_DATA:-data}
methods=let,dot,fma,mlr,pql,ctd,segac,segac-let,cgr,cdot,bestpath,clairvoyant
sections=(twobranch ringtown sfn anaheim paper rollout cdot ablations history)
out=docs/results.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# bench_block shows a bench command and its report, one heading level down.
bench_block() {
	echo '```sh'
	echo "ontime bench $*"
	echo '```'
	echo
	"$bin" bench "$@" --quiet | sed 's/^## /### /'
}

network_section() {
	# No --budgets: each network's own factors (the paper's unless it states
	# its own), as the Benchmarks page's form and ontime bench default to.
	local net=$1 m=$methods
	# The trained GPG-HT model, and its imitation-only checkpoint, where committed.
	if [ -f "models/$net.onnx" ]; then
		m="gpght,$m"
		[ -f "models/$net.imitation.onnx" ] && m="$m,onnx:models/$net.imitation.onnx"
	fi
	echo "## $net"
	echo
	echo '```sh'
	echo "ontime bench --network $net --methods $m"
	echo '```'
	echo
	if [ -f "models/$net.card.json" ]; then
		echo "GPG-HT is models/$net.onnx, trained by \`$(/usr/bin/python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print(c["command"])' "models/$net.card.json")\`."
		echo
	fi
	local start
	start=$(date +%s)
	# --no-cache: the solve times shown are real training times. --save
	# publishes the report for the dashboard's benchmarks page (embedded).
	"$bin" bench --network "$net" --methods "$m" --no-cache --quiet \
		--save "engine/lab/published/$net.json" | sed 's/^## /### /'
	echo
	echo "Wall time of the command, learner training included: $(($(date +%s) - start)) s."
}

section() {
	case $1 in
	twobranch | ringtown | sfn | anaheim) network_section "$1" ;;
	paper)
		[ -f models/sfn.onnx ] || return 0
		echo "## GPG-HT against LET, bestpath and the paper's six on Sioux Falls"
		echo
		echo "The Holm family is exactly GPG-HT against each of these eight at every budget (24 tests); the"
		echo "history-aware cgr and cdot are compared in the tables above and in the ablation section."
		echo
		bench_block --network sfn --methods gpght,let,bestpath,dot,fma,mlr,pql,ctd,segac --focus gpght
		;;
	rollout)
		echo "## Rollout: how much a planner gains from policy improvement (Sioux Falls)"
		echo
		echo "Bertsekas' rollout on each base (dot, cdot, cgr), with the base's default draws a decision and"
		echo "its rule for leaving the base's link (engine/policy/rollout.go): on dot 1000 draws and McNemar's"
		echo "z > 1 (chosen on the validation pools), about 1 ms a decision, so on all ten test pools; on cdot"
		echo "16 and on cgr 48 draws with z > 2, tens of milliseconds a decision, so on the first two test"
		echo "pools only. The Holm family is rollout against the other methods; gpght is in the run to"
		echo "measure the learned policy against it on the same episodes, and rollout on dot also meets cdot"
		echo "and cgr, the best planners (docs/findings.md: rollout's headroom)."
		for base in dot cdot cgr; do
			echo
			echo "### rollout on $base"
			echo
			m="rollout,$base" pools=2
			[ "$base" = dot ] && m="$m,cdot,cgr" pools=10
			[ -f models/sfn.onnx ] && m="$m,gpght"
			bench_block --network sfn --methods "$m" --rollout-base "$base" --pools $pools --focus rollout | sed 's/^### /#### /'
		done
		;;
	cdot)
		echo "## Does cdot beat both dot and cgr on Sioux Falls?"
		echo
		echo "The Holm family is cdot against each of the other two at every budget."
		echo
		bench_block --network sfn --methods cdot,dot,cgr --focus cdot
		;;
	ablations)
		# The controls and ablations of GPG-HT (scripts/models.sh trains them), where committed.
		local abl="" a
		for a in noha nodt vpg nohist shuffled indep; do
			[ -f "models/sfn-$a.onnx" ] && abl="$abl,gpght-$a"
		done
		[ -n "$abl" ] && [ -f models/sfn.onnx ] || return 0
		echo "## GPG-HT ablations and controls on Sioux Falls"
		echo
		echo "Each control is trained by \`ontime train --network sfn --ablation X\` (models/sfn-X.card.json): noha drops"
		echo "the link/time cross-attention and the time residual, nodt replaces the Transformer decoder by a linear"
		echo "layer, vpg uses the plain per-step vanilla policy gradient (no baseline, no entropy bonus) in the"
		echo "policy-gradient phase, nohist hides the prefix, shuffled feeds it in a shuffled order (in training and"
		echo "here), indep is trained as if links were independent and evaluated on the correlated pools. A control"
		echo "compares equal compute only when its command is the main model's plus \`--ablation X\`; each one's:"
		echo
		echo "| model | command | minutes |"
		echo "|---|---|---|"
		for f in models/sfn.card.json models/sfn-*.card.json; do
			/usr/bin/python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print("| %s | `%s` | %.0f |" % (sys.argv[1].split("/")[1].replace(".card.json",""), c["command"], c.get("seconds",0)/60))' "$f"
		done
		echo
		echo "The Holm family is gpght against each other method at every budget."
		echo
		bench_block --network sfn --methods "gpght$abl,onnx:models/sfn.imitation.onnx,cdot,cgr" --focus gpght
		;;
	history)
		echo "## twobranch: history control"
		echo
		bench_block --network twobranch --history-control --budgets 1 --pools 10 --pool-size 10000
		;;
	esac
}

# kept prints a section of the current docs/results.md (empty when absent).
kept() {
	[ -f "$out" ] || return 0
	awk -v s="<!-- results:$1 -->" -v e="<!-- /results:$1 -->" '$0==e{p=0} p{print} $0==s{p=1}' "$out"
}

# selected SECTION [REQUESTED...]: every section when none is requested.
selected() {
	local s=$1 x
	shift
	[ $# -eq 0 ] && return 0
	for x in "$@"; do [ "$x" = "$s" ] && return 0; done
	return 1
}

for x in "$@"; do
	selected "$x" "${sections[@]}" || { echo "results: unknown section $x (sections: ${sections[*]})" >&2; exit 2; }
done
for s in "${sections[@]}"; do
	if ! selected "$s" "$@"; then
		kept "$s" >"$work/$s.md"
		[ -s "$work/$s.md" ] && continue
		if [ "${RESULTS_PLACEHOLDER:-}" = 1 ]; then
			printf '## %s\n\nNot computed yet: run `scripts/results.sh BIN %s`.\n' "$s" "$s" >"$work/$s.md"
			continue
		fi
		echo "results: $s is not in $out yet: computing it" >&2
	fi
	echo "results: $s" >&2
	section "$s" >"$work/$s.md"
done

{
	echo "# Results"
	echo
	echo "Generated by \`make results\` (scripts/results.sh) with ontime $("$bin" version | cut -d' ' -f2-) on $(nproc) cores."
	echo "Every figure is computed by the commands shown; rerun them to reproduce. Timings are this machine's."
	if [ $# -gt 0 ]; then
		echo "Sections recomputed by this run: $*; the others are kept from the previous run (their commands are shown)."
	fi
	for s in "${sections[@]}"; do
		[ -s "$work/$s.md" ] || continue
		echo
		echo "<!-- results:$s -->"
		cat "$work/$s.md"
		echo "<!-- /results:$s -->"
	done
} >"$work/results.md"
mv "$work/results.md" "$out"
echo "wrote $out"

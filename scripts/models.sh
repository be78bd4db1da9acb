#!/usr/bin/env bash
# Reproduces the committed models (models/*.onnx): each card records the
# `ontime train` command that made it, with every count and seed, and this
# replays them (the main models first, then their controls). Cards for
# networks whose data is missing are skipped with a note.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/ontime}
export ONTIME_DATA=${ONTIME_DATA:-data}
py=/usr/bin/python3
for card in $(ls models/*.card.json | sort -t- -k2); do
	cmd=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["command"])' "$card")
	case "$cmd" in
	"ontime train "*) ;;
	*) echo "models: $card has no ontime train command; skipped" >&2; continue ;;
	esac
	if [ "$("$py" -c 'import json,sys; print("rounds" in json.load(open(sys.argv[1])))' "$card")" != True ]; then
		# Cards from before expert iteration record a command the trainer
		# no longer takes (a wall-clock policy-gradient phase).
		echo "models: $card was made by the older pipeline ($cmd); retrain it with ontime train's current flags" >&2
		continue
	fi
	net=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["network"])' "$card")
	case "$net" in
	sfn) need=tntp/SiouxFalls_net.tntp ;;
	anaheim) need=tntp/Anaheim_net.tntp ;;
	*) need= ;;
	esac
	if [ -n "$need" ] && [ ! -f "$ONTIME_DATA/$need" ]; then
		echo "models: $card needs $ONTIME_DATA/$need; skipped" >&2
		continue
	fi
	echo "models: $cmd" >&2
	# shellcheck disable=SC2086 # the card's arguments carry no spaces
	"$bin" ${cmd#ontime } --out "${card%.card.json}.onnx"
done

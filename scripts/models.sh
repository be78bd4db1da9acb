#!/usr/bin/env bash
# Reproduces the committed models (models/*.onnx and their cards) with the
# settings they were trained with. Needs the benchmark data for sfn.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/ontime}
export ONTIME_DATA=${ONTIME_DATA:-data}
"$bin" train --network twobranch --teacher cgr --budgets 0.98,1.02 --demos 4000 --minutes 1 --batch 1024
if [ -f "$ONTIME_DATA/tntp/SiouxFalls_net.tntp" ]; then
	"$bin" train --network sfn --teacher cdot --budgets 0.9,1.1 --demos 8000 --minutes 10 --batch 1024
	# The controls, with the main model's settings (about 12 minutes each).
	for a in noha nodt vpg nohist shuffled indep; do
		"$bin" train --network sfn --teacher cdot --budgets 0.9,1.1 --demos 8000 --minutes 10 --batch 1024 --ablation "$a"
	done
fi
if [ -f "$ONTIME_DATA/tntp/Anaheim_net.tntp" ]; then
	"$bin" train --network anaheim --teacher cgr --budgets 0.9,1.1 --demos 8000 --minutes 12 --batch 512
fi

#!/usr/bin/env bash
# The sweep's integration test on a real one-node Slurm cluster:
#
#   scripts/slurm-local.sh [BIN]
#
# It installs Debian's slurm-wlm and munge (once), writes a one-node
# slurm.conf and a munge key under a temporary directory, starts munged,
# slurmctld and slurmd there (nothing in /etc or /run is touched), and stops
# exactly those processes by pid when done. Then:
#   1. a sweep of Sioux Falls (two OD pairs, cgr, let and the learner pql,
#      four evaluation tasks) goes through `ontime sweep slurm --submit`;
#      the merged report must equal `ontime bench` run whole;
#   2. the same sweep again, one evaluation task held and cancelled
#      (scancel) and requeued (scontrol requeue): the merge must still be
#      identical.
# Without the benchmark data or root it skips, saying why (under CI it
# fails instead).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-bin/ontime}")
skip() {
	if [ -n "${CI:-}" ]; then
		echo "slurm-local: FAIL: $*" >&2
		exit 1
	fi
	echo "slurm-local: skipped: $*"
	exit 0
}
data=${ONTIME_DATA:-}
[ -n "$data" ] && [ -f "$data/tntp/SiouxFalls_net.tntp" ] || skip "needs the Sioux Falls files (set ONTIME_DATA)"
[ "$(id -u)" = 0 ] || skip "needs root (slurmd runs jobs as their users; apt-get installs the daemons)"
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	echo "slurm-local: installing slurm-wlm and munge"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi

work=$(mktemp -d /tmp/ontime-slurm.XXXXXX)
chmod 755 "$work"
pids=()
stop() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null || true
	done
	if [ -n "${KEEP:-}" ]; then echo "slurm-local: kept $work"; else rm -rf "$work"; fi
}
trap stop EXIT

# munge: its own key, socket, pid and log files
mungekey --create --keyfile="$work/munge.key"
chmod 600 "$work/munge.key"
munged --force --socket="$work/munge.socket" --key-file="$work/munge.key" --pid-file="$work/munged.pid" \
	--log-file="$work/munged.log" --seed-file="$work/munged.seed"
for _ in $(seq 50); do [ -s "$work/munged.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$work/munged.pid")")

node=$(hostname -s)
mkdir -p "$work/state" "$work/spool"
cat >"$work/slurm.conf" <<CONF
ClusterName=ontime-test
SlurmctldHost=$node
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
NodeName=$node CPUs=$(nproc) State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
slurmctld -f "$SLURM_CONF"
for _ in $(seq 100); do [ -s "$work/slurmctld.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$work/slurmctld.pid")")
slurmd -f "$SLURM_CONF" -N "$node"
for _ in $(seq 100); do [ -s "$work/slurmd.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$work/slurmd.pid")")
for _ in $(seq 100); do
	sinfo -h -o %T 2>/dev/null | grep -qx idle && break
	sleep 0.2
done
sinfo -h -o %T | grep -qx idle || { tail -20 "$work/slurmctld.log" "$work/slurmd.log"; echo "slurm-local: the node did not come up" >&2; exit 1; }
echo "slurm-local: one-node cluster up ($(sinfo -h -o '%P %D %c %T'))"

sweepfile=engine/sweep/testdata/sfn-slurm.toml
export ONTIME_STATE=$work/ontime-state

# waitjob ID [SECONDS]: until Slurm no longer lists the job (or time is up).
waitjob() {
	local t=0
	while [ -n "$(squeue -h -j "$1" 2>/dev/null)" ]; do
		sleep 1
		t=$((t + 1))
		[ "$t" -lt "${2:-600}" ] || { echo "slurm-local: job $1 still queued after ${2:-600} s" >&2; squeue; return 1; }
	done
}
# same A B: the two bench reports are equal, timings aside.
same() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
def load(p):
    r = json.load(open(p))
    r["provenance"]["elapsed_seconds"] = 0
    for m in r["provenance"]["methods"]:
        m["solve_seconds"] = 0
    return r
a, b = load(sys.argv[1]), load(sys.argv[2])
if a != b:
    print("slurm-local: the merged report differs from the unsharded bench", file=sys.stderr)
    sys.exit(1)
PY
}

t0=$(date +%s)
"$bin" bench --network sfn --ods 1-20,13-2 --methods cgr,let,pql --budgets 0.95,1.05 --pools 4 --pool-size 2000 \
	--no-cache --quiet --format json --out "$work/whole.json"
echo "slurm-local: unsharded bench in $(($(date +%s) - t0)) s"

# 1. the sweep through Slurm
t0=$(date +%s)
"$bin" sweep plan "$sweepfile" --out "$work/run1"
out=$("$bin" sweep slurm "$work/run1" --cpus-per-task 1 --max-parallel 2 --submit)
echo "$out"
merge=$(echo "$out" | sed -n 's/.*merge \([0-9]*\).*/\1/p')
waitjob "$merge"
"$bin" sweep status "$work/run1"
[ -f "$work/run1/results/instance-0000.json" ] || { cat "$work/run1"/logs/*; echo "slurm-local: no merged report" >&2; exit 1; }
same "$work/whole.json" "$work/run1/results/instance-0000.json"
"$bin" jobs list --kind bench | grep -q done || { echo "slurm-local: the merged report is not in the state directory" >&2; exit 1; }
echo "slurm-local: run 1 merged, equal to the unsharded bench ($(($(date +%s) - t0)) s through Slurm)"

# 2. one evaluation task cancelled mid-run, requeued, merged
t0=$(date +%s)
"$bin" sweep plan "$sweepfile" --out "$work/run2"
out=$("$bin" sweep slurm "$work/run2" --cpus-per-task 1 --max-parallel 1 --submit)
echo "$out"
eval_id=$(echo "$out" | sed -n 's/.*evaluation \([0-9]*\).*/\1/p')
merge=$(echo "$out" | sed -n 's/.*merge \([0-9]*\).*/\1/p')
victim=2
# Held while the array waits for training (afterok), then cancelled: a
# task cancelled as it runs may finish first on a fast machine (a race on
# the clock); a held one cannot start, so the outcome never depends on
# timing.
scontrol hold "${eval_id}_$victim"
state=$(squeue -h -j "${eval_id}_$victim" -o %T 2>/dev/null || true)
[ "$state" = PENDING ] || { echo "slurm-local: evaluation task $victim is $state, not pending, when held" >&2; exit 1; }
scancel "${eval_id}_$victim"
echo "slurm-local: cancelled evaluation task $victim (held while $state)"
# the rest of the array finishes; the merge can never start (afterok)
for _ in $(seq 600); do
	[ -z "$(squeue -h -j "$eval_id" -o %T 2>/dev/null)" ] && break
	sleep 1
done
[ ! -f "$work/run2/parts/task-00000$victim.json" ] || { echo "slurm-local: task $victim wrote its part though it was cancelled" >&2; exit 1; }
# status --wait stops when Slurm has nothing left to run, naming the task
if out=$("$bin" sweep status "$work/run2" --wait); then
	echo "slurm-local: status --wait did not report the cancelled task" >&2
	exit 1
fi
echo "$out" | tail -3
echo "$out" | grep -q "failed or gone: tasks $victim " || { echo "slurm-local: status does not name task $victim" >&2; exit 1; }
scancel "$merge" 2>/dev/null || true
scontrol requeue "${eval_id}_$victim"
scontrol release "${eval_id}_$victim" 2>/dev/null || true # the hold, if the requeue kept it
# A requeued job waits before it is eligible again; let it start now.
scontrol update JobId="${eval_id}_$victim" StartTime=now
echo "slurm-local: requeued ${eval_id}_$victim"
waitjob "${eval_id}_$victim"
"$bin" sweep merge "$work/run2"
same "$work/whole.json" "$work/run2/results/instance-0000.json"
echo "slurm-local: run 2 (task $victim cancelled and requeued) merged, equal to the unsharded bench ($(($(date +%s) - t0)) s)"
echo "slurm-local: ok"

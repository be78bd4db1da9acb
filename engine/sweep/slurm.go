package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/internal/atomicfile"
)

// SlurmOptions shape the sbatch scripts. The empty fields are left to the
// cluster's defaults.
type SlurmOptions struct {
	Partition   string
	Time        string // --time, e.g. 1:00:00
	CPUs        int    // --cpus-per-task
	Mem         string // --mem, e.g. 4G
	MaxParallel int    // the evaluation array's %K (0: no limit)
	Binary      string // this ontime, by an absolute path the nodes share
	// Env is exported in every script (ONTIME_DATA, ONTIME_STATE, …): a
	// batch job does not inherit the login shell's.
	Env map[string]string
	// Chdir is the jobs' working directory (where models/ is found, as
	// from the login shell that wrote the scripts).
	Chdir string
	// TaskArgs are flags for the training and evaluation commands
	// (--models DIR, --device cuda).
	TaskArgs []string
	// Missing writes the scripts for what is not done yet: the training
	// array over untrained instances, the evaluation array over tasks
	// without a verified part.
	Missing bool
}

// Scripts are the sbatch files written for a sweep; Train is "" when every
// instance is trained already.
type Scripts struct {
	Dir                string
	Train, Eval, Merge string
}

// WriteSlurm writes the sweep's three sbatch scripts into DIR/slurm: the
// training array (one task per instance), the evaluation array (one per
// task, at most MaxParallel at once) and the merge.
func WriteSlurm(dir string, o SlurmOptions) (Scripts, error) {
	m, c, err := Inspect(dir)
	if err != nil {
		return Scripts{}, err
	}
	if o.Binary == "" || !filepath.IsAbs(o.Binary) {
		return Scripts{}, engine.Errorf(engine.EINVALID, "the ontime binary %q must be an absolute path the nodes can run", o.Binary)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Scripts{}, err
	}
	trainIDs, evalIDs := allIDs(len(m.Instances)), allIDs(len(m.Tasks))
	if o.Missing {
		trainIDs = append(append([]int{}, c.TrainMissing...), c.TrainCorrupt...)
		evalIDs = append(append([]int{}, c.Missing...), c.Corrupt...)
		if len(evalIDs) == 0 && len(trainIDs) == 0 {
			return Scripts{}, engine.Errorf(engine.ECONFLICT, "sweep %s has nothing missing: run `ontime sweep merge %s`", m.Sweep, dir)
		}
	}
	sd := filepath.Join(abs, "slurm")
	if err := os.MkdirAll(filepath.Join(abs, "logs"), 0o755); err != nil {
		return Scripts{}, err
	}
	if err := os.MkdirAll(sd, 0o755); err != nil {
		return Scripts{}, err
	}
	s := Scripts{Dir: sd}
	// The array task index comes from SLURM_ARRAY_TASK_ID; the workers are
	// the CPUs granted.
	workers := `--workers "${SLURM_CPUS_PER_TASK:-1}"`
	for _, a := range o.TaskArgs {
		workers += " " + shellQuote(a)
	}
	write := func(name, what, array, command string) (string, error) {
		path := filepath.Join(sd, name+".sbatch")
		return path, atomicfile.WriteFile(path, []byte(o.script(m, abs, name, what, array, command)))
	}
	if len(trainIDs) > 0 {
		if s.Train, err = write("train", "training phase: builds every method of each instance once, learners into "+filepath.Join(abs, cacheDir),
			ranges(trainIDs), "sweep train "+workers+" "+shellQuote(abs)); err != nil {
			return s, err
		}
	}
	array := ranges(evalIDs)
	if o.MaxParallel > 0 {
		array += "%" + strconv.Itoa(o.MaxParallel)
	}
	if len(evalIDs) > 0 {
		if s.Eval, err = write("eval", "evaluation: one task = instance × OD pair × pool range; each writes parts/task-N.json", array, "sweep run "+workers+" "+shellQuote(abs)); err != nil {
			return s, err
		}
	}
	if s.Merge, err = write("merge", "merge: checks every part and writes results/, and the reports into the state directory", "", "sweep merge "+shellQuote(abs)); err != nil {
		return s, err
	}
	return s, nil
}

func (o SlurmOptions) script(m *Manifest, dir, name, what, array, command string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n# ontime sweep %s (%s), %s.\n# Written by `ontime sweep slurm`; `ontime sweep slurm --submit` submits the three scripts in order.\n", m.Name, m.Sweep, what)
	fmt.Fprintf(&b, "#SBATCH --job-name=ontime-%s-%s\n", name, m.Sweep[:8])
	if array != "" {
		fmt.Fprintf(&b, "#SBATCH --array=%s\n#SBATCH --output=%s/logs/%s-%%A_%%a.out\n", array, dir, name)
	} else {
		fmt.Fprintf(&b, "#SBATCH --output=%s/logs/%s-%%j.out\n", dir, name)
	}
	if o.Partition != "" {
		fmt.Fprintf(&b, "#SBATCH --partition=%s\n", o.Partition)
	}
	if o.Time != "" {
		fmt.Fprintf(&b, "#SBATCH --time=%s\n", o.Time)
	}
	if o.CPUs > 0 {
		fmt.Fprintf(&b, "#SBATCH --cpus-per-task=%d\n", o.CPUs)
	}
	if o.Mem != "" {
		fmt.Fprintf(&b, "#SBATCH --mem=%s\n", o.Mem)
	}
	b.WriteString("#SBATCH --requeue\n")
	if o.Chdir != "" {
		fmt.Fprintf(&b, "#SBATCH --chdir=%s\n", o.Chdir)
	}
	for _, k := range sortedKeys(o.Env) {
		fmt.Fprintf(&b, "export %s=%s\n", k, shellQuote(o.Env[k]))
	}
	fmt.Fprintf(&b, "exec %s %s\n", shellQuote(o.Binary), command)
	return b.String()
}

// Submission is one `ontime sweep slurm --submit`: the job ids, in
// DIR/slurm/jobs.json (newest last), which status reads.
type Submission struct {
	Time  time.Time `json:"time"`
	Train string    `json:"train,omitempty"`
	Eval  string    `json:"eval,omitempty"`
	Merge string    `json:"merge"`
}

// Submit submits the scripts with sbatch, each after the one before
// succeeded (afterok), and records the job ids.
func Submit(ctx context.Context, dir string, s Scripts) (Submission, error) {
	sub := Submission{Time: time.Now().UTC()}
	after := ""
	var err error
	for _, step := range []struct {
		script string
		id     *string
	}{{s.Train, &sub.Train}, {s.Eval, &sub.Eval}, {s.Merge, &sub.Merge}} {
		if step.script == "" {
			continue
		}
		args := []string{"--parsable"}
		if after != "" {
			args = append(args, "--dependency=afterok:"+after)
		}
		if *step.id, err = sbatch(ctx, append(args, step.script)...); err != nil {
			return sub, err
		}
		after = *step.id
	}
	var subs []Submission
	path := filepath.Join(s.Dir, "jobs.json")
	if b, err := os.ReadFile(path); err == nil {
		json.Unmarshal(b, &subs)
	}
	b, _ := json.MarshalIndent(append(subs, sub), "", "  ")
	return sub, atomicfile.WriteFile(path, append(b, '\n'))
}

func sbatch(ctx context.Context, args ...string) (string, error) {
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, "sbatch", args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("sbatch %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	id, _, _ := strings.Cut(strings.TrimSpace(out.String()), ";") // "id;cluster" on federations
	return id, nil
}

// LastSubmission is the newest submission recorded in dir, if any.
func LastSubmission(dir string) (Submission, bool) {
	var subs []Submission
	b, err := os.ReadFile(filepath.Join(dir, "slurm", "jobs.json"))
	if err != nil || json.Unmarshal(b, &subs) != nil || len(subs) == 0 {
		return Submission{}, false
	}
	return subs[len(subs)-1], true
}

// SchedulerStates asks Slurm for the state of each array task of job id
// (task index → state): sacct where accounting is on, else squeue (which
// knows pending and running tasks only). ok is false without either.
func SchedulerStates(ctx context.Context, id string) (map[int]string, string, bool) {
	states := map[int]string{}
	parse := func(out string) {
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			jid, state, ok := strings.Cut(line, "|")
			_, idx, ok2 := strings.Cut(jid, "_")
			if !ok || !ok2 {
				continue
			}
			state, _, _ = strings.Cut(strings.TrimSpace(state), " ") // "CANCELLED by 0"
			if strings.HasPrefix(idx, "[") {                         // a pending range: [4-7%2]
				idx = strings.Trim(strings.Split(idx, "%")[0], "[]")
				for _, r := range strings.Split(idx, ",") {
					a, b, isRange := strings.Cut(r, "-")
					lo, _ := strconv.Atoi(a)
					hi := lo
					if isRange {
						hi, _ = strconv.Atoi(b)
					}
					for i := lo; i <= hi; i++ {
						states[i] = state
					}
				}
				continue
			}
			if i, err := strconv.Atoi(idx); err == nil {
				states[i] = state
			}
		}
	}
	if out, err := exec.CommandContext(ctx, "sacct", "-n", "-P", "-X", "-j", id, "-o", "JobID,State").Output(); err == nil && len(bytes.TrimSpace(out)) > 0 {
		parse(string(out))
		return states, "sacct", true
	}
	if out, err := exec.CommandContext(ctx, "squeue", "-h", "-r", "-j", id, "-o", "%i|%T").Output(); err == nil {
		parse(string(out))
		return states, "squeue", true
	}
	return nil, "", false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func allIDs(n int) []int {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i
	}
	return ids
}

// shellQuote quotes s for bash.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '=' || r == ',' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Slurm's job states, as squeue and sacct print them: which are still to
// run (a task missing in one of them is not failed yet) and which ended
// without the task's part.
var (
	slurmActive = []string{"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "RESIZING", "SUSPENDED"}
	slurmFailed = []string{"FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL"}
)

// NotQueued is the state of a task the scheduler no longer lists.
const NotQueued = "not queued"

// Active says whether a task in Slurm state s is still to run.
func Active(s string) bool { return slices.Contains(slurmActive, s) }

// Failed says whether a task in state s (as from, squeue or sacct, reported
// it) ended without its part: a failed state, or, per squeue (which lists
// only what is queued or running), a task it no longer lists.
func Failed(s, from string) bool {
	return slices.Contains(slurmFailed, s) || s == NotQueued && from == "squeue"
}

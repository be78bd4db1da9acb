package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/sweep"
)

const sweepUsage = `usage: ontime sweep COMMAND [flags]
  plan FILE --out DIR     expand a sweep file (TOML) into DIR/manifest.json
  train DIR [--task I]    the training phase of instance I
  run DIR [--task I]      evaluation task I: writes DIR/parts/task-I.json
  merge DIR [--partial]   check every part, write DIR/results/ and store the reports
  status DIR [--wait]     tasks done, missing, failed (with Slurm's states)
  slurm DIR [--submit]    write (and submit) the sbatch scripts
  k8s DIR                 write Kubernetes Indexed Jobs for the same contract
I defaults to $SLURM_ARRAY_TASK_ID, then $JOB_COMPLETION_INDEX (Kubernetes).
`

// runSweep runs a sweep's commands: a grid of benchmarks as independent
// tasks on a shared directory (see engine/sweep).
// sweepVerbs are the sweep group's subcommands.
var sweepVerbs = []string{"plan", "train", "run", "merge", "status", "slurm", "k8s"}

func runSweep(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if done, err := groupUsage(args, sweepUsage, stdout, stderr); done {
		return err
	}
	cmd := args[0]
	fs := flag.NewFlagSet("sweep "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := registerSweepFlags(fs)
	pos, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return usageErr(err)
	}
	dataDir := orEnv(*f.data, getenv, "ONTIME_DATA")
	l := newLab(getenv, *f.state, lab.Options{DataDir: dataDir})
	defer l.Close()
	open := func(name string) (*engine.Network, error) { return l.LoadNetworkOrFile(ctx, name) }
	if len(pos) != 1 {
		return engine.Errorf(engine.EINVALID, "sweep %s takes one argument (%s)", cmd, map[bool]string{true: "the sweep file", false: "the sweep directory"}[cmd == "plan"])
	}
	dir := pos[0]
	switch cmd {
	case "plan":
		return sweepPlan(dir, *f.out, open, stdout)
	case "train", "run":
		i, err := sweepIndex(cmd, *f.task, getenv)
		if err != nil {
			return err
		}
		opts := sweep.Options{Open: open, Workers: *f.workers, Models: *f.models, Device: *f.device, Version: version, Commit: buildCommit(),
			Logf: func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }}
		return sweepTask(ctx, cmd, dir, i, opts, stdout)
	case "merge":
		return sweepMerge(ctx, l, dir, open, *f.partial, !*f.noStore, stdout)
	case "status":
		return sweepStatus(ctx, dir, *f.wait, stdout)
	case "slurm":
		return sweepSlurm(ctx, dir, f, dataDir, stateDir(*f.state, getenv), stdout)
	case "k8s":
		env := map[string]string{}
		if dataDir != "" {
			env["ONTIME_DATA"] = dataDir
		}
		path, err := sweep.WriteK8s(dir, sweep.K8sOptions{Image: *f.image, Volume: *f.volume, MountPath: *f.mount, Memory: *f.mem,
			CPU: strconv.Itoa(max(*f.cpus, 1)), Parallel: *f.maxParallel, Env: env})
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, "wrote", path)
		return nil
	}
	fmt.Fprint(stderr, sweepUsage)
	return fmt.Errorf("unknown sweep command %q: %w", cmd, errUsage)
}

// sweepFlags are every sweep verb's flags (each says which verbs read it).
type sweepFlags struct {
	data, state, out, models, device         *string
	partition, timeLimit, mem, image, volume *string
	mount                                    *string
	task, workers, cpus, maxParallel         *int
	partial, noStore, wait, submit, missing  *bool
}

func registerSweepFlags(fs *flag.FlagSet) *sweepFlags {
	return &sweepFlags{
		data:        fs.String("data", "", "benchmark data directory (default $ONTIME_DATA)"),
		state:       registerState(fs),
		out:         fs.String("out", "", "plan: the sweep directory to create (on the cluster's shared filesystem)"),
		task:        fs.Int("task", -1, "train, run: the instance or task index (default $SLURM_ARRAY_TASK_ID, then $JOB_COMPLETION_INDEX)"),
		workers:     fs.Int("workers", 0, "train, run: parallel workers (default: all cores)"),
		models:      fs.String("models", "", "train, run: directory of trained models (default: models/ in the working directory or a parent)"),
		device:      fs.String("device", "cpu", "train, run: where ONNX policies run: cpu or cuda"),
		partial:     fs.Bool("partial", false, "merge: report the whole instances and say what is missing instead of refusing"),
		noStore:     fs.Bool("no-store", false, "merge: write DIR/results only, not the state directory"),
		wait:        fs.Bool("wait", false, "status: redraw a progress bar until every task is done"),
		partition:   fs.String("partition", "", "slurm: --partition"),
		timeLimit:   fs.String("time", "", "slurm: --time of each job, e.g. 2:00:00"),
		cpus:        fs.Int("cpus-per-task", 0, "slurm: --cpus-per-task (the workers of each task)"),
		mem:         fs.String("mem", "", "slurm, k8s: memory of each task, e.g. 4G"),
		maxParallel: fs.Int("max-parallel", 0, "slurm: at most this many evaluation tasks at once (--array=…%K); k8s: parallelism"),
		submit:      fs.Bool("submit", false, "slurm: submit the scripts with sbatch (each after the one before succeeds) and print the job ids"),
		missing:     fs.Bool("missing", false, "slurm: scripts for what is not done yet only (rerun what failed)"),
		image:       fs.String("image", "", "k8s: container image with ontime on its PATH"),
		volume:      fs.String("volume", "", "k8s: PersistentVolumeClaim holding the sweep directory"),
		mount:       fs.String("mount", "/sweep", "k8s: where the claim is mounted (the sweep directory's path in the pods)"),
	}
}

// sweepIndex is the instance or task a train or run verb works on: --task,
// else the scheduler's array index.
func sweepIndex(cmd string, task int, getenv func(string) string) (int, error) {
	if task >= 0 {
		return task, nil
	}
	for _, v := range []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"} {
		if s := getenv(v); s != "" {
			i, err := strconv.Atoi(s)
			if err != nil {
				return 0, engine.Errorf(engine.EINVALID, "$%s=%q is not an index", v, s)
			}
			return i, nil
		}
	}
	return 0, engine.Errorf(engine.EINVALID, "sweep %s: give --task I (or run it as a Slurm array or an Indexed Job)", cmd)
}

// sweepPlan plans the sweep file's instances and tasks into out.
func sweepPlan(file, out string, open sweep.Opener, stdout io.Writer) error {
	if out == "" {
		return engine.Errorf(engine.EINVALID, "sweep plan: give --out DIR")
	}
	f, err := sweep.ReadFile(file)
	if err != nil {
		return err
	}
	m, err := sweep.Plan(f, open, version, buildCommit())
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if err := sweep.WriteManifest(out, m); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "sweep %s (%s): %d instances, %d tasks in %s\n", m.Sweep, m.Name, len(m.Instances), len(m.Tasks), out)
	return nil
}

// sweepTask trains instance i (train) or runs task i (run).
func sweepTask(ctx context.Context, cmd, dir string, i int, opts sweep.Options, stdout io.Writer) error {
	start := time.Now()
	run, what := sweep.RunTask, "task"
	if cmd == "train" {
		run, what = sweep.Train, "instance"
	}
	done, err := run(ctx, dir, i, opts)
	if err != nil {
		return err
	}
	if done {
		fmt.Fprintf(stdout, "%s %d: already done (its part verifies)\n", what, i)
	} else {
		fmt.Fprintf(stdout, "%s %d: done in %.1f s\n", what, i, time.Since(start).Seconds())
	}
	return nil
}

// sweepSlurm writes the sweep's sbatch scripts and, with --submit, submits
// them one after another.
func sweepSlurm(ctx context.Context, dir string, f *sweepFlags, dataDir, state string, stdout io.Writer) error {
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	env := map[string]string{}
	if dataDir != "" {
		env["ONTIME_DATA"], _ = filepath.Abs(dataDir)
	}
	env["ONTIME_STATE"], _ = filepath.Abs(state)
	var taskArgs []string
	if *f.models != "" {
		m, _ := filepath.Abs(*f.models)
		taskArgs = append(taskArgs, "--models", m)
	}
	if *f.device != "cpu" {
		taskArgs = append(taskArgs, "--device", *f.device)
	}
	wd, _ := os.Getwd()
	s, err := sweep.WriteSlurm(dir, sweep.SlurmOptions{Partition: *f.partition, Time: *f.timeLimit, CPUs: *f.cpus, Mem: *f.mem,
		MaxParallel: *f.maxParallel, Binary: bin, Env: env, Chdir: wd, TaskArgs: taskArgs, Missing: *f.missing})
	if err != nil {
		return err
	}
	for _, p := range []string{s.Train, s.Eval, s.Merge} {
		if p != "" {
			fmt.Fprintln(stdout, "wrote", p)
		}
	}
	if !*f.submit {
		return nil
	}
	sub, err := sweep.Submit(ctx, dir, s)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "submitted: training %s, evaluation %s, merge %s\n", orDash(sub.Train), orDash(sub.Eval), sub.Merge)
	return nil
}

func sweepMerge(ctx context.Context, l *lab.Lab, dir string, open sweep.Opener, partial, store bool, stdout io.Writer) error {
	start := time.Now()
	res, c, err := sweep.Merge(dir, open, partial)
	if err != nil {
		return err
	}
	m, _ := sweep.ReadManifest(dir)
	fmt.Fprintf(stdout, "merged %d of %d instances in %.2f s: %s; reports in %s\n", len(res), len(m.Instances), time.Since(start).Seconds(), c.Summary(), filepath.Join(dir, "results"))
	if !store {
		return nil
	}
	for _, r := range res {
		st, err := l.ImportBench(ctx, m.Sweep+"|"+strconv.Itoa(r.Instance.ID), fmt.Sprintf("sweep %s (%s), %s", m.Name, m.Sweep, r.Instance.Label()), r.Report)
		if err != nil {
			return fmt.Errorf("storing %s: %w", r.Instance.Label(), err)
		}
		fmt.Fprintf(stdout, "stored %s as benchmark job %s of %s\n", r.Instance.Label(), st.ID, r.Report.Network)
	}
	return nil
}

func sweepStatus(ctx context.Context, dir string, wait bool, stdout io.Writer) error {
	for {
		m, c, err := sweep.Inspect(dir)
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %d/%d tasks done, %d/%d instances trained", bar(len(c.Done), len(m.Tasks), 30), len(c.Done), len(m.Tasks), len(c.Trained), len(m.Instances))
		var failed []string
		active := 0 // missing tasks Slurm still has queued or running
		if sub, ok := sweep.LastSubmission(dir); ok && sub.Eval != "" {
			if states, from, ok := sweep.SchedulerStates(ctx, sub.Eval); ok {
				count := map[string]int{}
				for _, t := range c.Missing {
					s, known := states[t]
					if !known {
						s = sweep.NotQueued
					}
					count[s]++
					if sweep.Active(s) {
						active++
					}
					if sweep.Failed(s, from) {
						failed = append(failed, fmt.Sprintf("%d (%s)", t, strings.ToLower(s)))
					}
				}
				var parts []string
				for s, n := range count {
					parts = append(parts, fmt.Sprintf("%d %s", n, strings.ToLower(s)))
				}
				if len(parts) > 0 {
					line += fmt.Sprintf("; not done, per %s: %s", from, strings.Join(parts, ", "))
				}
			}
		}
		// Waiting ends when every part is in, or when Slurm has nothing of
		// the sweep left to run (what is missing then failed).
		gone := len(failed) > 0 && active == 0
		if !wait || c.Complete() || gone {
			if wait {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintln(stdout, line)
			if !c.Complete() {
				fmt.Fprintln(stdout, c.Summary())
			}
			for k, why := range c.Why {
				fmt.Fprintf(stdout, "%s: %s\n", k, why)
			}
			if len(failed) > 0 {
				fmt.Fprintf(stdout, "failed or gone: tasks %s; rerun them with `ontime sweep slurm %s --missing --submit`\n", strings.Join(failed, ", "), dir)
			}
			if wait && gone {
				return engine.Errorf(engine.ECONFLICT, "sweep %s: Slurm has nothing left to run and %d tasks are missing", m.Sweep, len(c.Missing))
			}
			return nil
		}
		fmt.Fprintf(stdout, "\r%s", line)
		select {
		case <-ctx.Done():
			fmt.Fprintln(stdout)
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

func bar(done, total, width int) string {
	n := 0
	if total > 0 {
		n = done * width / total
	}
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + "]"
}

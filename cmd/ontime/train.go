package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/sim"
	"github.com/ontime-routing/ontime/engine/trainspec"
)

// runTrain writes the trainer's spec for a network (its link-time model,
// OD pairs, budget range, validation pool and a teacher's demonstrations),
// runs the PyTorch trainer and checks that the exported model loads.
func runTrain(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var nf netFlags
	nf.register(fs)
	teacher := fs.String("teacher", "cgr", "policy whose demonstrations warm-start the model (a method name)")
	demos := fs.Int("demos", 4000, "teacher demonstrations")
	budgets := fs.String("budgets", "0.9,1.1", "budget factor range LO,HI the model covers")
	minutes := fs.Float64("minutes", 5, "policy-gradient phase wall time, minutes")
	imitation := fs.Int("imitation-epochs", 30, "imitation epochs over the demonstrations")
	valSize := fs.Int("validation-size", 2000, "validation pool size (checkpoint selection)")
	pgLR := fs.Float64("pg-lr", 5e-5, "policy-gradient learning rate")
	batch := fs.Int("batch", 512, "episodes per policy-gradient step")
	seed := fs.Uint64("seed", 0, "benchmark instance (training stream and validation pool seeds)")
	out := fs.String("out", "", "model file (default models/NETWORK.onnx)")
	python := fs.String("python", "/usr/bin/python3", "Python with PyTorch 1.13+ and onnx")
	size := fs.String("size", "64,2,1,4", "d,encoder layers,decoder layers,heads (the paper's is 256,4,1,8)")
	device := fs.String("device", "cpu", "cpu or cuda")
	ablation := fs.String("ablation", "", "control variant: "+strings.Join(policy.Ablations, ", ")+" (default --out models/NETWORK-VARIANT.onnx)")
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	net, model, err := nf.load(fs, getenv)
	if err != nil {
		return err
	}
	trainerFlag, ok := ablationFlags[*ablation]
	if !ok {
		return engine.Errorf(engine.EINVALID, "--ablation %q: use one of %s", *ablation, strings.Join(policy.Ablations, ", "))
	}
	if *ablation == "indep" {
		// The control trained as if links were independent: its teacher,
		// demonstrations, validation pool and training stream all use
		// independent links with the same means and variances.
		net.Correlation = engine.Correlation{Model: "independent"}
		if model, err = linktime.New(net); err != nil {
			return err
		}
	}
	lohi, err := parseBudgets(*budgets)
	if err != nil || len(lohi) != 2 || lohi[0] > lohi[1] {
		return engine.Errorf(engine.EINVALID, "--budgets: give LO,HI factors, e.g. 0.9,1.1")
	}
	if *out == "" {
		*out = filepath.Join("models", policy.ModelFile(net.Name, *ablation))
	}
	tasks := sim.Tasks(net, net.ODs, []float64{lohi[0], (lohi[0] + lohi[1]) / 2, lohi[1]})
	m, err := policy.Lookup(*teacher)
	if err != nil {
		return err
	}
	tp, _, err := m.New(&policy.Env{Net: net, Model: model, Tasks: tasks, Seed: *seed})
	if err != nil {
		return fmt.Errorf("teacher %s: %w", *teacher, err)
	}
	dir, err := os.MkdirTemp("", "ontime-train-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintf(stderr, "train %s: writing the spec (%d demonstrations by %s)\n", net.Name, *demos, *teacher)
	if _, err := trainspec.Write(dir, net, model, trainspec.Options{ODs: net.ODs, BudgetLo: lohi[0], BudgetHi: lohi[1],
		Seed: *seed, ValidationSize: *valSize, Teacher: tp, TeacherName: *teacher, Demos: *demos}); err != nil {
		return err
	}
	dims := splitList(*size)
	if len(dims) != 4 {
		return engine.Errorf(engine.EINVALID, "--size: give d,encoder,decoder,heads")
	}
	script := filepath.Join("models", "train", "train.py")
	cmdArgs := []string{script, "--spec", dir, "--out", *out, "--minutes", fmt.Sprint(*minutes),
		"--imitation-epochs", fmt.Sprint(*imitation), "--d", dims[0], "--enc", dims[1], "--dec", dims[2],
		"--heads", dims[3], "--device", *device, "--seed", fmt.Sprint(*seed), "--pg-lr", fmt.Sprint(*pgLR),
		"--batch", fmt.Sprint(*batch), "--command", "ontime train " + strings.Join(args, " ")}
	if trainerFlag != "" {
		cmdArgs = append(cmdArgs, trainerFlag)
	}
	if *ablation != "" {
		cmdArgs = append(cmdArgs, "--ablation", *ablation)
	}
	// The trainer's stderr and our progress lines share one writer.
	stderr = &syncWriter{w: stderr}
	cmd := exec.CommandContext(ctx, *python, cmdArgs...)
	cmd.Env = append(os.Environ(), "OPENBLAS_NUM_THREADS=1", "PYTHONUNBUFFERED=1")
	cmd.Stderr = stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the trainer (%s): %w", *python, err)
	}
	var last map[string]any
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		line := sc.Text()
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) != nil {
			fmt.Fprintln(stderr, line)
			continue
		}
		last = ev
		fmt.Fprintf(stderr, "train %s: %s\n", net.Name, strings.TrimSpace(line))
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("trainer failed: %w", err)
	}
	p, err := policy.NewONNXPolicy(net, *out, policy.ONNXOptions{Shuffle: *ablation == "shuffled"})
	if err != nil {
		return fmt.Errorf("the exported model does not load: %w", err)
	}
	p.Close()
	fmt.Fprintf(stdout, "trained %s: %s (card %s); last: %v\n", net.Name, *out, strings.TrimSuffix(*out, ".onnx")+".card.json", last)
	return nil
}

// ablationFlags maps each ablation to the trainer's switch for it ("indep"
// changes the spec instead).
var ablationFlags = map[string]string{"": "", "nohist": "--no-history", "noha": "--no-ha", "nodt": "--linear-decoder",
	"vpg": "--vpg", "shuffled": "--shuffle-prefix", "indep": ""}

// syncWriter serializes writes from the trainer's stderr copier and the
// progress loop.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

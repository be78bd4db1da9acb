package sweep

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/internal/atomicfile"
)

// Check is the state of a sweep's parts: every training and task part that
// is there and verifies, and those missing or corrupt (with why).
type Check struct {
	Trained, Done         []int
	TrainMissing, Missing []int
	TrainCorrupt, Corrupt []int
	Why                   map[string]string // "task 3", "instance 1": what is wrong with the part
	trains                map[int]trainPart
	parts                 map[int]taskPart
}

// Complete reports whether every part is there and verifies.
func (c *Check) Complete() bool {
	return len(c.TrainMissing)+len(c.Missing)+len(c.TrainCorrupt)+len(c.Corrupt) == 0
}

// Inspect reads and verifies every part of the sweep in dir.
func Inspect(dir string) (*Manifest, *Check, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, nil, err
	}
	c := &Check{Why: map[string]string{}, trains: map[int]trainPart{}, parts: map[int]taskPart{}}
	for _, inst := range m.Instances {
		var tp trainPart
		switch err := readPart(trainPath(dir, inst.ID), m.Sweep, "train", inst.ID, &tp); {
		case err == nil:
			c.Trained, c.trains[inst.ID] = append(c.Trained, inst.ID), tp
		case err == errMissing:
			c.TrainMissing = append(c.TrainMissing, inst.ID)
		default:
			c.TrainCorrupt = append(c.TrainCorrupt, inst.ID)
			c.Why[fmt.Sprintf("instance %d", inst.ID)] = err.Error()
		}
	}
	for _, t := range m.Tasks {
		var tp taskPart
		switch err := readPart(partPath(dir, t.ID), m.Sweep, "task", t.ID, &tp); {
		case err == nil:
			c.Done, c.parts[t.ID] = append(c.Done, t.ID), tp
		case err == errMissing:
			c.Missing = append(c.Missing, t.ID)
		default:
			c.Corrupt = append(c.Corrupt, t.ID)
			c.Why[fmt.Sprintf("task %d", t.ID)] = err.Error()
		}
	}
	return m, c, nil
}

// Result is one instance's merged report.
type Result struct {
	Instance Instance
	Report   *bench.Report
}

// Merge joins the parts of every instance into its report, the one `ontime
// bench` gives for it run whole, and writes results/instance-NNNN.json and
// results/report.md. With parts missing or corrupt it refuses, naming
// them, unless partial: then the instances that are whole are reported and
// the report says what is missing.
func Merge(dir string, open Opener, partial bool) ([]Result, *Check, error) {
	m, c, err := Inspect(dir)
	if err != nil {
		return nil, nil, err
	}
	if !c.Complete() && !partial {
		return nil, c, engine.Errorf(engine.ECONFLICT, "sweep %s is not complete: %s (rerun those tasks, or merge with --partial)", m.Sweep, c.Summary())
	}
	byInstance := map[int][]int{}
	for _, t := range m.Tasks {
		byInstance[t.Instance] = append(byInstance[t.Instance], t.ID)
	}
	var out []Result
	var md bytes.Buffer
	fmt.Fprintf(&md, "# Sweep %s (%s)\n\n%d instances, %d tasks, merged from the parts in %s.\n", m.Name, m.Sweep, len(m.Instances), len(m.Tasks), dir)
	md.WriteString("Every number is the one `ontime bench` gives for the instance run whole, timings aside: a method's solve time\n" +
		"is the training phase's (learners trained there); planners solve their tables in each task, whose time counts in the\n" +
		"run's total (the sum of the training phase's and the tasks' seconds).\n")
	if !c.Complete() {
		fmt.Fprintf(&md, "\n**Partial**: %s. Instances with a part missing are not reported.\n", c.Summary())
	}
	for _, inst := range m.Instances {
		tp, trained := c.trains[inst.ID]
		whole := trained
		var counts [][]bench.Counts
		seconds := tp.Seconds
		for _, id := range byInstance[inst.ID] {
			p, ok := c.parts[id]
			whole = whole && ok
			counts = append(counts, p.Counts)
			seconds += p.Seconds
		}
		if !whole {
			fmt.Fprintf(&md, "\n## %s\n\nNot reported: parts missing or corrupt.\n", inst.Label())
			continue
		}
		cfg, err := m.Config(inst, open)
		if err != nil {
			return nil, c, fmt.Errorf("%s: %w", inst.Label(), err)
		}
		rep, err := bench.Assemble(cfg, tp.Methods, counts, seconds)
		if err != nil {
			return nil, c, fmt.Errorf("%s: %w", inst.Label(), err)
		}
		var js bytes.Buffer
		if err := rep.Write(&js, "json"); err != nil {
			return nil, c, err
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, resultsDir, fmt.Sprintf("instance-%04d.json", inst.ID)), js.Bytes()); err != nil {
			return nil, c, err
		}
		fmt.Fprintf(&md, "\n## %s\n\n", inst.Label())
		var body bytes.Buffer
		if err := rep.Write(&body, "md"); err != nil {
			return nil, c, err
		}
		md.WriteString(strings.TrimPrefix(strings.ReplaceAll("\n"+body.String(), "\n## ", "\n### "), "\n"))
		out = append(out, Result{Instance: inst, Report: rep})
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, resultsDir, "report.md"), md.Bytes()); err != nil {
		return nil, c, err
	}
	return out, c, nil
}

// Summary says in one line what is missing or corrupt.
func (c *Check) Summary() string {
	var s []string
	add := func(what string, ids []int) {
		if len(ids) > 0 {
			s = append(s, what+" "+ranges(ids))
		}
	}
	add("training missing for instances", c.TrainMissing)
	add("training corrupt for instances", c.TrainCorrupt)
	add("tasks missing:", c.Missing)
	add("tasks corrupt:", c.Corrupt)
	if len(s) == 0 {
		return "every part is there and verifies"
	}
	return strings.Join(s, "; ")
}

// ranges writes ids compactly, as Slurm's --array takes them: 0-3,7,9-10.
func ranges(ids []int) string {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	var b strings.Builder
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", ids[i], ids[j])
		} else {
			fmt.Fprintf(&b, "%d", ids[i])
		}
		i = j + 1
	}
	return b.String()
}

package policy

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Outside the registry (this package), code knows no method by name: it
// asks the registry for behaviour (Method's NetworkModel, TeachOrder,
// RolloutBase, Lessons, Kind). The test looks for a method's name written
// as a string ("gpght", 'dot', `cdot`), a property (rates.let) or a word in
// an id (choice-gpght) in every Go file, page and script of the tree; the
// files allowed to name one are listed with their reason: each states a
// scientific claim about named methods or runs a named experiment.
func TestNoMethodNamesOutsideTheRegistry(t *testing.T) {
	root := filepath.Join("..", "..")
	var names []string
	for _, m := range Methods {
		names = append(names, regexp.QuoteMeta(m.Name))
	}
	alt := strings.Join(names, "|")
	// Go: a name as a whole string literal. Pages and scripts: also a
	// property (rates.let) and a word of an id (choice-gpght).
	goName := regexp.MustCompile(`"(` + alt + `)"`)
	pageName := regexp.MustCompile(`(["'` + "`" + `]|\.|-)(` + alt + `)(["'` + "`" + `]|-|\b)`)
	dirs := []string{"server", "web", "engine", "cmd", "internal"}
	allowed := map[string]string{
		"cmd/ontime/verify.go":                 "verify's --rollout asks for rollout's own invariant (rollout ≥ its base)",
		"engine/verify/verify.go":              "the invariant battery: each invariant is a claim about named methods (cdot = dot on independent links, …)",
		"engine/verify/generate.go":            "the battery's generated cases name the methods they check",
		"engine/verify/shared.go":              "closed-form optima stated for named methods",
		"engine/verify/clock.go":               "the day's battery: each invariant is a claim about named methods (cdot = dot on independent links, dot ≥ let, …)",
		"engine/bench/invariants.go":           "a report's own invariants (cdot = dot on independent links, clairvoyant bounds)",
		"engine/bench/history.go":              "the history-control experiment is about condrule",
		"engine/train/labeller.go":             "the trainer's labeller is rollout",
		"cmd/ontime/internal/perf/perf.go":     "the performance report measures named methods",
		"cmd/ontime/internal/perf/policies.go": "the performance report measures named methods",
		"cmd/ontime/internal/perf/load.go":     "the load test drives named methods",
		"cmd/ontime/internal/perf/sweep.go":    "the sweep timing runs named methods",
		"cmd/ontime/internal/perf/cities.go":   "the cities section benchmarks the planners that scale, by name",
		"engine/builtin/files.go":              "a data source named for the SEGAC repository, not the method",
	}
	used := map[string]bool{}
	checked := 0
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if rel == "engine/policy" || d.Name() == "testdata" || d.Name() == "node_modules" {
					return filepath.SkipDir
				}
				return nil
			}
			name := d.Name()
			switch {
			case strings.HasSuffix(name, "_test.go"), strings.HasSuffix(name, "_templ.go"):
				return nil
			case !strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, ".templ") && !strings.HasSuffix(name, ".js"):
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			checked++
			for i, line := range strings.Split(string(src), "\n") {
				code := line
				if k := strings.Index(code, "//"); k >= 0 && !strings.Contains(code[:k], `"`) && !strings.Contains(code[:k], "`") {
					code = code[:k] // a comment may name a method
				}
				re := pageName
				if strings.HasSuffix(name, ".go") {
					re = goName
				}
				m := re.FindString(code)
				if m != "" && allowed[rel] != "" {
					used[rel] = true
				} else if m != "" {
					t.Errorf("%s:%d names method %s: %s", path, i+1, m, strings.TrimSpace(line))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for f, why := range allowed {
		if !used[f] {
			t.Errorf("%s is allowed to name methods (%s) but names none: drop it from the list", f, why)
		}
	}
	if checked < 50 {
		t.Fatalf("checked only %d files: is the tree where the test expects it?", checked)
	}
}

package policy

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The dashboard half (server, pages, front end, lab) and the command line
// know no method by name: they ask the registry for behaviour (Method's
// NetworkModel, TeachOrder, RolloutBase, Lessons, Kind). The test looks for
// a method's name written as a string ("gpght", 'dot', `cdot`), a property
// (rates.let) or a word in an id (choice-gpght) outside the registry.
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
	dirs := []string{"server", "web", "engine/lab", "cmd/ontime"}
	// The one exception, with its reason: verify's --rollout asks for
	// rollout's own invariant (rollout ≥ its base), a flag named for it.
	allowed := map[string]bool{"../../cmd/ontime/verify.go": true}
	checked := 0
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
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
				if m := re.FindString(code); m != "" && !allowed[filepath.ToSlash(path)] {
					t.Errorf("%s:%d names method %s: %s", path, i+1, m, strings.TrimSpace(line))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 50 {
		t.Fatalf("checked only %d files: is the tree where the test expects it?", checked)
	}
}

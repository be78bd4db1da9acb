package server

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// lab is the dashboard's one door to the engine: server and web import
// only engine (domain types and errors), lab, and (server) web.
func TestDashboardImportsOnlyLab(t *testing.T) {
	const mod = "github.com/ontime-routing/ontime/"
	allowed := map[string]bool{mod + "engine": true, mod + "engine/lab": true, mod + "web": true}
	for _, dir := range []string{".", "../web"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		if len(files) == 0 {
			t.Fatalf("no Go files in %s", dir)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range ast.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if strings.HasPrefix(p, mod) && !allowed[p] {
					t.Errorf("%s imports %s: the dashboard reaches the engine through lab", f, p)
				}
			}
		}
	}
}

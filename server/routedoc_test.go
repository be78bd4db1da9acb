package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every handler's comment names its route, as routes.go maps it (method
// and pattern, or the pattern alone): a newcomer reading a handler knows
// where it answers, and one reading routes.go finds the handler by name.
func TestHandlersNameTheirRoutes(t *testing.T) {
	routes, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	patterns := map[string][]string{} // handler → patterns it serves
	for _, m := range regexp.MustCompile(`\.(Get|Post|Delete|Handle)\("([^"]+)", s\.(handle\w+)`).FindAllStringSubmatch(string(routes), -1) {
		patterns[m[3]] = append(patterns[m[3]], m[2])
	}
	if len(patterns) < 40 {
		t.Fatalf("read %d handlers from routes.go", len(patterns))
	}
	files, _ := filepath.Glob("*.go")
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || patterns[fn.Name.Name] == nil {
				continue
			}
			seen++
			doc := ""
			if fn.Doc != nil {
				doc = fn.Doc.Text()
			}
			for _, p := range patterns[fn.Name.Name] {
				if !strings.Contains(doc, p) {
					t.Errorf("%s: %s's comment does not name its route %s", f, fn.Name.Name, p)
				}
			}
		}
	}
	if seen != len(patterns) {
		t.Errorf("found %d of the %d handlers routes.go names", seen, len(patterns))
	}
}

package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// lab is the dashboard's one door to the engine's work: server and web
// import engine (domain types and errors), lab, and (server) web; and the
// engine's domain packages for their types, constants and a few pure
// lookups (a method's colour, a name made safe), never to do work there
// (open a network, run a benchmark, start a job): those calls go through
// lab. No alias re-exports them under lab's name.
func TestDashboardImportsOnlyLab(t *testing.T) {
	const mod = "github.com/ontime-routing/ontime/"
	// and the leaf utilities that import nothing of this module (colours;
	// CSV cells a spreadsheet reads as data)
	allowed := map[string]bool{mod + "engine": true, mod + "engine/lab": true, mod + "web": true, mod + "internal/palette": true, mod + "internal/csvsafe": true}
	domain := map[string]bool{mod + "engine/bench": true, mod + "engine/jobs": true, mod + "engine/netfile": true, mod + "engine/fit": true,
		mod + "engine/train": true, mod + "engine/policy": true, mod + "engine/builtin": true, mod + "engine/depart": true}
	pure := map[string]bool{"policy.Color": true, "policy.NetworkModelName": true, "jobs.Finished": true, "netfile.SanitizeName": true,
		"netfile.ApplySettings": true, "netfile.FormatList": true, "train.CheckpointLabel": true, "train.DefaultRequest": true, "fit.LooksLikeObservations": true, "netfile.Zip": true}
	for _, dir := range []string{".", "../web"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		if len(files) == 0 {
			t.Fatalf("no Go files in %s", dir)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{} // the domain packages' names in this file
			for _, imp := range file.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				switch {
				case domain[p]:
					names[path.Base(p)] = true
				case strings.HasPrefix(p, mod) && !allowed[p]:
					t.Errorf("%s imports %s: the dashboard reaches the engine through lab", f, p)
				}
			}
			ast.Inspect(file, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && names[id.Name] && !pure[id.Name+"."+sel.Sel.Name] {
						t.Errorf("%s calls %s.%s: work goes through lab (domain packages give the dashboard types and pure lookups only)", f, id.Name, sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
}

// lab re-exports nothing: no alias of another package's type, and no
// function that only calls another package's.
func TestLabHasNoAliases(t *testing.T) {
	files, _ := filepath.Glob("../engine/lab/*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && ts.Assign.IsValid() {
						if _, ok := ts.Type.(*ast.SelectorExpr); ok {
							t.Errorf("%s: type %s = another package's type", f, ts.Name.Name)
						}
					}
					if vs, ok := s.(*ast.ValueSpec); ok {
						for i, v := range vs.Values {
							if sel, ok := v.(*ast.SelectorExpr); ok && ast.IsExported(vs.Names[i].Name) {
								if _, ok := sel.X.(*ast.Ident); ok {
									t.Errorf("%s: %s = %s.%s re-exports another package's value", f, vs.Names[i].Name, sel.X.(*ast.Ident).Name, sel.Sel.Name)
								}
							}
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv != nil || !d.Name.IsExported() || len(d.Body.List) != 1 {
					continue
				}
				if ret, ok := d.Body.List[0].(*ast.ReturnStmt); ok && len(ret.Results) == 1 {
					if call, ok := ret.Results[0].(*ast.CallExpr); ok {
						if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
							if _, ok := sel.X.(*ast.Ident); ok && len(call.Args) == len(d.Type.Params.List) {
								t.Errorf("%s: func %s only calls %s.%s", f, d.Name.Name, sel.X.(*ast.Ident).Name, sel.Sel.Name)
							}
						}
					}
					if sel, ok := ret.Results[0].(*ast.SelectorExpr); ok {
						if _, ok := sel.X.(*ast.Ident); ok {
							t.Errorf("%s: func %s only returns %s.%s", f, d.Name.Name, sel.X.(*ast.Ident).Name, sel.Sel.Name)
						}
					}
				}
			}
		}
	}
}

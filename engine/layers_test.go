package engine_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The layers point one way (docs/extending.md): the engine knows nothing of
// HTTP, pages or the command line; what it needs that is not the domain
// lives in leaf packages under internal/ (importing nothing of this module
// but each other) or inside engine/; what drives the product from above
// (the performance report, the load test, the image, the data download)
// lives under cmd/ontime/internal/, which Go lets only the command import.
func TestLayersPointOneWay(t *testing.T) {
	const mod = "github.com/ontime-routing/ontime/"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, mod+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	// leaf: a package that imports nothing of this module but leaves:
	// internal/'s utilities and models (the embedded ONNX models).
	leaf := func(p string) bool { return strings.HasPrefix(p, "internal/") || p == "models" }
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], mod)
		for _, imp := range f[1:] {
			dep, ours := strings.CutPrefix(imp, mod)
			if !ours || dep == pkg {
				continue
			}
			checked++
			switch {
			case strings.HasPrefix(pkg, "engine") && !strings.HasPrefix(dep, "engine") && !leaf(dep):
				t.Errorf("%s imports %s: the engine imports only the engine and leaves (internal/, models)", pkg, dep)
			case leaf(pkg) && !leaf(dep):
				t.Errorf("%s imports %s: a leaf imports leaves only", pkg, dep)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no import of this module was read")
	}
}

package netfile

import (
	"flag"
	"os"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/extending.md's formats table from Formats")

// docs/extending.md's table of formats is Formats' (go test -update
// rewrites it).
func TestFormatsTableInDocs(t *testing.T) {
	const path = "../../docs/extending.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	begin, end := strings.Index(doc, "<!-- formats:begin -->\n"), strings.Index(doc, "<!-- formats:end -->")
	if begin < 0 || end < begin {
		t.Fatalf("%s has no formats:begin/end markers", path)
	}
	begin += len("<!-- formats:begin -->\n")
	if got := doc[begin:end]; got != FormatsMarkdown() {
		if *update {
			os.WriteFile(path, []byte(doc[:begin]+FormatsMarkdown()+doc[end:]), 0o644)
			return
		}
		t.Errorf("%s's formats table differs from Formats (go test ./engine/netfile -run TestFormatsTableInDocs -update):\n%s", path, FormatsMarkdown())
	}
}

// Every format's settings are rows of ImportSettings, and every format that
// reads files has a main slot and a slot that fills it.
func TestFormatsRowsAreWhole(t *testing.T) {
	for _, f := range Formats {
		for _, o := range f.Options {
			found := false
			for _, s := range ImportSettings {
				found = found || s.Name == o
			}
			if !found {
				t.Errorf("%s reads the setting %q, which is not in ImportSettings", f.Name, o)
			}
		}
		if f.Export != "" && !slices.ContainsFunc(Exports, func(x Export) bool { return x.Name == f.Export }) {
			t.Errorf("%s is exported as %q, which is not in Exports", f.Name, f.Export)
		}
		if f.read == nil {
			continue
		}
		var r roles
		fills := false
		for _, s := range f.slots {
			if s.into != nil && s.into(&r) == f.main(&r) {
				fills = true
			}
		}
		if !fills {
			t.Errorf("%s: no slot fills its main file", f.Name)
		}
	}
}

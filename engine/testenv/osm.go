package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// OSMExtract is the path of one of the real OpenStreetMap extracts the
// paulmach/osm module ships in its testdata (delaware-latest.osm.pbf,
// andorra-latest.osm.bz2), read from the Go module cache where the build
// put it; never copied into the repository.
func OSMExtract(tb testing.TB, name string) string {
	tb.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/paulmach/osm").Output()
	dir := strings.TrimSpace(string(out))
	if err == nil && dir != "" {
		p := filepath.Join(dir, "testdata", name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	Missing(tb, "the OpenStreetMap extract "+name+" from the paulmach/osm module (go mod download github.com/paulmach/osm@v0.8.0)")
	return ""
}

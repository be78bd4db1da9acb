// Package python runs the Python client's tests (test_ontime_client.py)
// against a real dashboard on loopback, so that `make test` checks the
// client with the server it ships with.
package python

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"

	"github.com/ontime-routing/ontime/assets"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/server"
)

func TestPythonClient(t *testing.T) {
	if testing.Short() {
		t.Skip("a benchmark and a plan through the client: the plain pass runs them")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("python3 is not on PATH: the Python client's tests need it")
		}
		t.Skip("python3 is not on PATH: the Python client's tests need it")
	}
	l := lab.New(lab.Options{StateDir: t.TempDir(), DataDir: os.Getenv("ONTIME_DATA"), Version: "test"})
	ts := httptest.NewServer(server.NewServer(server.Deps{Lab: l, Version: "test", Assets: assets.FS}))
	defer func() { ts.Close(); l.Close() }()
	cmd := exec.Command(py, "-m", "unittest", "-v", "test_ontime_client")
	cmd.Env = append(os.Environ(), "ONTIME_URL="+ts.URL, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("python3 -m unittest: %v", err)
	}
}

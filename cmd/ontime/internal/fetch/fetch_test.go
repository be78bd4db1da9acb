package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/testenv"
)

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestFetchFromLocalServer(t *testing.T) {
	content := map[string]string{"/o/r/c/a.tntp": "alpha\n", "/o/r/c/b.csv": "From,To,Cost,Var\n1,2,3,4\n"}
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		c, ok := content[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(c))
	}))
	defer srv.Close()
	files := []builtin.DataFile{
		{Path: "tntp/a.tntp", URL: "https://example.invalid/o/r/c/a.tntp", SHA256: sum("alpha\n"), Source: "tntp"},
		{Path: "segac/b.csv", URL: "https://example.invalid/o/r/c/b.csv", SHA256: sum(content["/o/r/c/b.csv"]), Source: "segac"},
	}
	dest := t.TempDir()
	var progress bytes.Buffer
	if err := Fetch(context.Background(), files, Options{Dest: dest, Mirror: srv.URL, Progress: &progress}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dest, "tntp", "a.tntp"))
	if err != nil || string(got) != "alpha\n" {
		t.Fatalf("a.tntp = %q, %v", got, err)
	}
	lic, err := os.ReadFile(filepath.Join(dest, LicenceFile))
	if err != nil || !strings.Contains(string(lic), "academic research purposes only") {
		t.Fatalf("licence file: %v\n%s", err, lic)
	}
	if !strings.Contains(progress.String(), "[2/2] segac/b.csv: downloaded") || !strings.Contains(progress.String(), "Licence:") {
		t.Errorf("progress:\n%s", progress.String())
	}
	// A second fetch downloads nothing.
	hits = 0
	if err := Fetch(context.Background(), files, Options{Dest: dest, Mirror: srv.URL}); err != nil || hits != 0 {
		t.Fatalf("second fetch: err %v, %d downloads", err, hits)
	}
}

func TestFetchRejectsWrongDigestAndKeepsUserFiles(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("tampered")) }))
	defer srv.Close()
	dest := t.TempDir()
	files := []builtin.DataFile{{Path: "tntp/a.tntp", URL: "https://example.invalid/a.tntp", SHA256: sum("alpha\n"), Source: "tntp"}}
	err := Fetch(context.Background(), files, Options{Dest: dest, Mirror: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("err = %v, want a digest mismatch", err)
	}
	if _, statErr := os.Stat(filepath.Join(dest, "tntp", "a.tntp")); statErr == nil {
		t.Fatal("a corrupt download was kept")
	}
	// A user's own file with other content is not overwritten.
	os.MkdirAll(filepath.Join(dest, "tntp"), 0o755)
	os.WriteFile(filepath.Join(dest, "tntp", "a.tntp"), []byte("mine"), 0o644)
	err = Fetch(context.Background(), files, Options{Dest: dest, Mirror: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("err = %v, want a refusal naming --force", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "tntp", "a.tntp")); string(b) != "mine" {
		t.Fatalf("user file overwritten: %q", b)
	}
}

func TestFetchHTTPError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	files := []builtin.DataFile{{Path: "tntp/a.tntp", URL: "https://example.invalid/a.tntp", SHA256: sum("x"), Source: "tntp"}}
	err := Fetch(context.Background(), files, Options{Dest: t.TempDir(), Mirror: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "tntp/a.tntp") {
		t.Fatalf("err = %v", err)
	}
}

// The pinned digests are those of the benchmark files (checked when present).
func TestPinnedDigestsMatchData(t *testing.T) {
	dir := testenv.DataDir(t)
	for _, f := range builtin.DataFiles {
		b, err := os.ReadFile(filepath.Join(dir, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		if sum(string(b)) != f.SHA256 {
			t.Errorf("%s: pinned digest differs from the data file", f.Path)
		}
	}
}

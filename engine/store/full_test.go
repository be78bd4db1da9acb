package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ontime-routing/ontime/engine"
)

// fullLimit is the file size the child may write up to: room for the
// stored network, none for the large one it then tries to add.
const fullLimit = 1 << 20

// A disk that fills while saving (here: a file-size limit on the process,
// which fails writes the way a full disk does) fails that save with an
// error, and everything stored before is intact: the database opens,
// passes SQLite's integrity check, and holds the earlier network and job
// unchanged; a rename that cannot be written leaves the old name.
func TestDiskFullKeepsStoredState(t *testing.T) {
	if dir := os.Getenv("ONTIME_STORE_FULL"); dir != "" {
		fillUp(dir)
		return
	}
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	kept := Network{Name: "kept", Created: time.Now(), Nodes: 2, Links: 1, Settings: []byte(`{}`), Report: []byte(`{}`), Data: bytes.Repeat([]byte("k"), 64<<10)}
	if err := s.PutNetwork(ctx, kept); err != nil {
		t.Fatal(err)
	}
	if err := s.PutJob(ctx, Job{ID: "j1", Kind: "bench", Network: "kept", State: "done", Started: time.Now(), Spec: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	cmd := exec.Command(os.Args[0], "-test.run", "^TestDiskFullKeepsStoredState$")
	cmd.Env = append(os.Environ(), "ONTIME_STORE_FULL="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the process writing to a full disk died: %v\n%s", err, out)
	}
	for _, want := range []string{"put big: error storage", "rename: error storage", "is its disk full?"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("child said %q, want %q", out, want)
		}
	}

	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ok string
	if err := s.db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity check: %q %v", ok, err)
	}
	got, err := s.Network(ctx, "kept")
	if err != nil || !bytes.Equal(got.Data, kept.Data) {
		t.Fatalf("the stored network is not intact: %v", err)
	}
	if _, err := s.Network(ctx, "big"); err == nil {
		t.Error("half a save is visible")
	}
	if j, err := s.Job(ctx, "j1"); err != nil || j.State != "done" {
		t.Errorf("the stored job: %+v %v", j, err)
	}
}

// fillUp runs in the child: under a file-size limit it tries a save too
// large for it and a rename, saying how each ended.
func fillUp(dir string) {
	var size int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, _ error) error {
		if fi != nil && !fi.IsDir() {
			size = max(size, fi.Size())
		}
		return nil
	})
	lim := &syscall.Rlimit{Cur: uint64(size + fullLimit), Max: uint64(size + fullLimit)}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, lim); err != nil {
		fmt.Println("setrlimit:", err)
		return
	}
	s, err := Open(dir)
	if err != nil {
		fmt.Println("open: error", err)
		return
	}
	defer s.Close()
	ctx := context.Background()
	big := Network{Name: "big", Created: time.Now(), Settings: []byte(`{}`), Report: []byte(`{}`), Data: bytes.Repeat([]byte("b"), 8<<20)}
	if err := s.PutNetwork(ctx, big); err != nil {
		fmt.Println("put big: error", engine.ErrorCode(err), err)
	} else {
		fmt.Println("put big: stored")
	}
	if err := s.RenameNetwork(ctx, "kept", "renamed", bytes.Repeat([]byte("r"), 8<<20)); err != nil {
		fmt.Println("rename: error", engine.ErrorCode(err), err)
	} else {
		fmt.Println("rename: stored")
	}
}

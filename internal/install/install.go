// Package install finds the files ontime ships with its source tree — the
// committed models, the trainer, the ONNX Runtime library npm installs —
// the same way for every part of the product: beside or above the running
// binary first (bin/ontime in a checkout, started from anywhere), then
// beside or above the working directory (go run, test binaries).
package install

import (
	"os"
	"path/filepath"
)

// Starts are the directories a search begins at, in order: the binary's
// (symlinks resolved), then the working directory.
func Starts() []string {
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			dirs = append(dirs, filepath.Dir(exe))
		}
	}
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	return dirs
}

// Find returns the first path rel found in a start directory or one of its
// parents, and whether there was one; want says whether a candidate is
// acceptable (nil: it exists).
func Find(rel string, want func(os.FileInfo) bool) (string, bool) {
	for _, dir := range Starts() {
		for {
			p := filepath.Join(dir, rel)
			if st, err := os.Stat(p); err == nil && (want == nil || want(st)) {
				return p, true
			}
			up := filepath.Dir(dir)
			if up == dir {
				break
			}
			dir = up
		}
	}
	return "", false
}

// IsDir accepts a directory.
func IsDir(st os.FileInfo) bool { return st.IsDir() }

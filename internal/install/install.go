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

// BinaryDir is the running binary's directory (symlinks resolved), or ""
// when it cannot be told.
func BinaryDir() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return ""
	}
	return filepath.Dir(exe)
}

// Find returns the first path rel found beside or above the binary, then
// beside or above the working directory, and whether there was one; want
// says whether a candidate is acceptable (nil: it exists).
func Find(rel string, want func(os.FileInfo) bool) (string, bool) {
	dirs := []string{BinaryDir()}
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	return findUp(dirs, rel, want)
}

// FindBesideBinary is Find without the working directory, for what must not
// depend on where a command is run from (the trainer).
func FindBesideBinary(rel string, want func(os.FileInfo) bool) (string, bool) {
	return findUp([]string{BinaryDir()}, rel, want)
}

// findUp looks for rel in each directory and its parents, in order.
func findUp(dirs []string, rel string, want func(os.FileInfo) bool) (string, bool) {
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
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

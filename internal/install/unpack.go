package install

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ontime-routing/ontime/internal/atomicfile"
)

// Unpack copies the files of fsys (one directory, as embedded) into the
// user's cache directory once, under name and a hash of their contents,
// and returns that directory: ONNX Runtime opens models by path. A copy
// already there is reused; each file is written atomically, so processes
// unpacking at once never see a partial file.
func Unpack(fsys fs.FS, name string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return unpackTo(fsys, filepath.Join(cache, "ontime"), name)
}

func unpackTo(fsys fs.FS, root, name string) (string, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	files := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", e.Name(), len(b))
		h.Write(b)
		files[e.Name()] = b
	}
	dir := filepath.Join(root, name+"-"+hex.EncodeToString(h.Sum(nil))[:16])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for n, b := range files {
		p := filepath.Join(dir, n)
		if st, err := os.Stat(p); err == nil && st.Size() == int64(len(b)) {
			continue
		}
		if err := atomicfile.WriteFile(p, b); err != nil {
			return "", err
		}
	}
	return dir, nil
}

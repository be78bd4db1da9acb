// Package fetch downloads the public benchmark files into a data directory,
// verifying each against its pinned SHA-256, and writes the sources'
// licence terms beside them.
package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
)

// Options configure a fetch.
type Options struct {
	Dest     string
	Client   *http.Client
	Mirror   string    // if set, replaces each URL's scheme and host (tests, offline mirrors)
	Progress io.Writer // one line per file
	Force    bool      // replace existing files whose content differs from the pinned one
}

// LicenceFile is written beside the data.
const LicenceFile = "SOURCES-AND-LICENCES.txt"

// Fetch downloads every missing file of files into opts.Dest. A file already
// present with the pinned digest is kept; one with another digest is an
// error unless Force, so nothing a user stored there is overwritten silently.
func Fetch(ctx context.Context, files []builtin.DataFile, opts Options) error {
	client := opts.Client
	if client == nil {
		client = http.DefaultClient
	}
	progress := opts.Progress
	if progress == nil {
		progress = io.Discard
	}
	for i, f := range files {
		dst := filepath.Join(opts.Dest, filepath.FromSlash(f.Path))
		status, err := existing(dst, f.SHA256)
		if err != nil {
			return err
		}
		if status == "ok" {
			fmt.Fprintf(progress, "[%d/%d] %s: present, verified\n", i+1, len(files), f.Path)
			continue
		}
		if status == "differs" && !opts.Force {
			return engine.Errorf(engine.EINVALID, "%s exists with other content than the pinned source (SHA-256 %s…): move it away or pass --force", dst, f.SHA256[:12])
		}
		u, err := resolve(f.URL, opts.Mirror)
		if err != nil {
			return err
		}
		n, err := download(ctx, client, u, dst, f.SHA256)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		fmt.Fprintf(progress, "[%d/%d] %s: downloaded %d bytes, SHA-256 verified\n", i+1, len(files), f.Path, n)
	}
	return writeLicences(opts.Dest, files, progress)
}

func existing(path, want string) (string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "missing", nil
	}
	if err != nil {
		return "", err
	}
	if digest(data) == want {
		return "ok", nil
	}
	return "differs", nil
}

func resolve(raw, mirror string) (string, error) {
	if mirror == "" {
		return raw, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(mirror, "/") + u.Path, nil
}

// download fetches u into dst through a temporary file in the same
// directory, renamed into place only after the digest matches.
func download(ctx context.Context, client *http.Client, u, dst, want string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return 0, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".fetch-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), resp.Body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return 0, fmt.Errorf("GET %s: SHA-256 %s, want %s (the source changed or the download is corrupt)", u, got, want)
	}
	return n, os.Rename(tmp.Name(), dst)
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// writeLicences writes the sources and their licence terms beside the data
// and prints the terms.
func writeLicences(dest string, files []builtin.DataFile, progress io.Writer) error {
	bySource := map[string][]builtin.DataFile{}
	for _, f := range files {
		bySource[f.Source] = append(bySource[f.Source], f)
	}
	keys := make([]string, 0, len(bySource))
	for k := range bySource {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("Files fetched by `ontime networks fetch`, with their sources and licence terms.\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "\n%s\n", builtin.Licences[k])
		for _, f := range bySource[k] {
			fmt.Fprintf(&b, "  %s  %s\n    from %s\n", f.SHA256, f.Path, f.URL)
		}
		fmt.Fprintf(progress, "Licence: %s\n", builtin.Licences[k])
	}
	return os.WriteFile(filepath.Join(dest, LicenceFile), []byte(b.String()), 0o644)
}

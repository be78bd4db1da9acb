// Package image builds ontime's container image without a daemon
// (go-containerregistry): the binary, its trained models and trainer, the
// ONNX Runtime library and LAPACK, and every shared library they load,
// taken from this machine, on no base image. `ontime sweep k8s --image`
// runs it on a cluster.
package image

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Where things are inside the image. The models sit above the binary,
// where ontime looks for them (internal/install), the trainer with them.
const (
	Root    = "/opt/ontime"
	BinPath = Root + "/bin/ontime"
	LibDir  = Root + "/lib"
	Models  = Root + "/models"
	State   = "/var/lib/ontime"
	Cache   = "/var/cache/ontime"
	// User is the numbered, unnamed user the server runs as: not root,
	// and the owner of the state and cache directories only (mode 0700).
	User = "10001:10001"
	uid  = 10001
)

// Spec says what goes in.
type Spec struct {
	Binary  string // the ontime binary
	ORTLib  string // libonnxruntime.so.1.24.3 (its soname goes in LibDir)
	Models  string // the models directory (its *.onnx, *.card.json and train/)
	Tag     string // e.g. ontime:0.1.0
	Version string
	Commit  string
	// Dlopened are libraries the binary opens at run time by soname
	// (LAPACK), added when this machine has them.
	Dlopened []string
}

// file is one regular file of the image.
type file struct {
	path string // inside the image
	data []byte
	mode fs.FileMode
}

// Build makes the image described by spec.
func Build(spec Spec) (v1.Image, error) {
	var files []file
	add := func(src, dst string, mode fs.FileMode) error {
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		files = append(files, file{dst, data, mode})
		return nil
	}
	if err := add(spec.Binary, BinPath, 0o755); err != nil {
		return nil, err
	}
	ortName := ""
	if spec.ORTLib != "" {
		soname, err := soName(spec.ORTLib)
		if err != nil {
			return nil, err
		}
		ortName = soname
		if err := add(spec.ORTLib, path.Join(LibDir, soname), 0o755); err != nil {
			return nil, err
		}
	}
	if spec.Models != "" {
		err := filepath.WalkDir(spec.Models, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(spec.Models, p)
			keep := strings.HasSuffix(p, ".onnx") || strings.HasSuffix(p, ".card.json") || strings.HasPrefix(rel, "train"+string(filepath.Separator)) && strings.HasSuffix(p, ".py")
			// Test files stay out: models/testdata holds the upload
			// probe's bombs (a model declaring an 8 GB constant, one
			// that loops for ever), and the trainer's tests are no part
			// of training.
			test := slices.Contains(strings.Split(filepath.ToSlash(rel), "/"), "testdata") || strings.HasPrefix(filepath.Base(p), "test_")
			if !keep || test || strings.Contains(rel, "__pycache__") {
				return nil
			}
			return add(p, path.Join(Models, filepath.ToSlash(rel)), 0o644)
		})
		if err != nil {
			return nil, err
		}
	}
	// The shared libraries: every file's needs, found the way this
	// machine's loader finds them, copied under their sonames.
	roots := []string{spec.Binary}
	if spec.ORTLib != "" {
		roots = append(roots, spec.ORTLib)
	}
	for _, so := range spec.Dlopened {
		if p, err := findLibrary(so); err == nil {
			roots = append(roots, p)
			if err := add(p, path.Join(LibDir, so), 0o755); err != nil {
				return nil, err
			}
		}
	}
	libs, interp, err := closure(roots)
	if err != nil {
		return nil, err
	}
	for _, soname := range slices.Sorted(maps.Keys(libs)) {
		if soname == ortName || slices.Contains(spec.Dlopened, soname) {
			continue
		}
		if err := add(libs[soname], path.Join(LibDir, soname), 0o755); err != nil {
			return nil, err
		}
	}
	if interp != "" {
		if err := add(interp, interp, 0o755); err != nil {
			return nil, err
		}
	}
	layer, err := layerOf(files, []dir{{"/tmp", 0o1777, 0}, {State, 0o700, uid}, {Cache, 0o700, uid}})
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", runtime.GOARCH
	cfg.Created = v1.Time{Time: time.Unix(0, 0).UTC()} // reproducible: the same inputs, the same digest
	env := []string{"PATH=" + Root + "/bin:/usr/bin:/bin", "LD_LIBRARY_PATH=" + LibDir, "ONTIME_STATE=" + State, "ONTIME_CACHE=" + Cache, "HOME=/tmp"}
	if ortName != "" {
		env = append(env, "ONTIME_ORT_LIB="+path.Join(LibDir, ortName))
	}
	cfg.Config.Env = env
	cfg.Config.Entrypoint = []string{BinPath}
	// It serves every address of the container (what a published port
	// reaches): with ONTIME_TOKEN set, changes need the token; without it,
	// --no-token says so plainly, and the server warns at start.
	cfg.Config.Cmd = []string{"serve", "--addr", "0.0.0.0:8080", "--host", "localhost", "--no-token"}
	cfg.Config.User = User
	cfg.Config.WorkingDir = "/tmp"
	cfg.Config.ExposedPorts = map[string]struct{}{"8080/tcp": {}}
	cfg.Config.Labels = map[string]string{"org.opencontainers.image.title": "ontime", "org.opencontainers.image.version": spec.Version, "org.opencontainers.image.revision": spec.Commit}
	return mutate.ConfigFile(img, cfg)
}

// Write writes the image as a tarball `docker load` and `podman load` read.
func Write(img v1.Image, tag, out string) error {
	ref, err := name.NewTag(tag)
	if err != nil {
		return fmt.Errorf("tag %q: %w", tag, err)
	}
	return tarball.WriteToFile(out, ref, img)
}

// dir is an empty directory of the image: its mode and owner.
type dir struct {
	path  string
	mode  int64
	owner int
}

// layerOf packs files and the empty directories dirs into one layer with
// fixed times and owners (root, but for the dirs' own).
func layerOf(files []file, dirs []dir) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	made := map[string]bool{}
	mkdir := func(leaf dir) error {
		var parts []string
		for d := leaf.path; d != "/" && d != "."; d = path.Dir(d) {
			parts = append([]string{d}, parts...)
		}
		for _, d := range parts {
			if made[d] {
				continue
			}
			made[d] = true
			m, owner := int64(0o755), 0
			if d == leaf.path {
				m, owner = leaf.mode, leaf.owner
			}
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: strings.TrimPrefix(d, "/") + "/", Mode: m, Uid: owner, Gid: owner, ModTime: time.Unix(0, 0)}); err != nil {
				return err
			}
		}
		return nil
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	for _, d := range dirs {
		if err := mkdir(d); err != nil {
			return nil, err
		}
	}
	for _, f := range files {
		if err := mkdir(dir{path.Dir(f.path), 0o755, 0}); err != nil {
			return nil, err
		}
		h := &tar.Header{Typeflag: tar.TypeReg, Name: strings.TrimPrefix(f.path, "/"), Mode: int64(f.mode), Size: int64(len(f.data)), ModTime: time.Unix(0, 0)}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
}

// closure finds every shared library roots need, transitively, by soname,
// with the paths this machine's loader resolves them to (ldd), and the
// loader itself.
func closure(roots []string) (map[string]string, string, error) {
	libs := map[string]string{}
	interp := ""
	line := regexp.MustCompile(`^\s*(\S+)\s+=>\s+(\S+)\s+\(`)
	for _, r := range roots {
		out, err := exec.Command("ldd", r).Output()
		if err != nil {
			return nil, "", fmt.Errorf("ldd %s: %w (the image takes the libraries this machine's loader finds)", r, err)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if m := line.FindStringSubmatch(l); m != nil {
				libs[m[1]] = m[2]
			}
		}
		if p, err := interpreter(r); err == nil && p != "" {
			interp = p
		}
	}
	return libs, interp, nil
}

// interpreter is an executable's dynamic loader (PT_INTERP), "" for a
// library.
func interpreter(file string) (string, error) {
	f, err := elf.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b, err := io.ReadAll(p.Open())
			return strings.TrimRight(string(b), "\x00"), err
		}
	}
	return "", nil
}

// soName is a library's DT_SONAME, else its file name.
func soName(file string) (string, error) {
	f, err := elf.Open(file)
	if err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	defer f.Close()
	if names, err := f.DynString(elf.DT_SONAME); err == nil && len(names) > 0 {
		return names[0], nil
	}
	return filepath.Base(file), nil
}

// findLibrary resolves a soname as the loader would (ldconfig's cache).
func findLibrary(soname string) (string, error) {
	out, err := exec.Command("/sbin/ldconfig", "-p").Output()
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), soname+" ") && strings.Contains(l, "x86-64") == (runtime.GOARCH == "amd64") {
			if i := strings.Index(l, "=> "); i >= 0 {
				return filepath.EvalSymlinks(strings.TrimSpace(l[i+3:]))
			}
		}
	}
	return "", fmt.Errorf("%s not found by ldconfig", soname)
}

package image

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// The image read back from its tarball holds the binary, the models and
// the ONNX Runtime library byte for byte, every shared library any ELF file
// in it needs (the closure), and the loader; the same inputs give the same
// digest; and, where this test may chroot, ontime runs inside it: its
// version, and a benchmark with the GPG-HT model through ONNX Runtime.
func TestImageReadBack(t *testing.T) {
	// It builds the ontime binary and a 100 MB image (17 s): with the large
	// cases (CI, make verify, make image).
	testenv.Large(t)
	lib, err := ort.FindLibrary()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "ontime")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/ontime-routing/ontime/cmd/ontime").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	spec := Spec{Binary: bin, ORTLib: lib, Models: "../../../../models", Tag: "ontime:test", Version: "test", Commit: "abc", Dlopened: []string{"liblapack.so.3"}}
	img, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "image.tar")
	if err := Write(img, spec.Tag, out); err != nil {
		t.Fatal(err)
	}
	tag, _ := name.NewTag(spec.Tag)
	back, err := tarball.ImageFromPath(out, &tag)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Build(spec)
	d1, _ := back.Digest()
	d2, _ := again.Digest()
	if d1 != d2 {
		t.Errorf("two builds of the same inputs: %s and %s", d1, d2)
	}
	cfg, err := back.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Config.Entrypoint[0] != BinPath || cfg.OS != "linux" || cfg.Config.Labels["org.opencontainers.image.revision"] != "abc" {
		t.Errorf("config: %+v", cfg.Config)
	}
	_, files := entries(t, back)
	same := func(src, dst string) {
		want, _ := os.ReadFile(src)
		if got, ok := files[dst]; !ok || !bytes.Equal(got, want) {
			t.Errorf("%s: in the image %v, the same bytes as %s %v", dst, ok, src, bytes.Equal(got, want))
		}
	}
	same(bin, BinPath)
	ortPath := ""
	for _, e := range cfg.Config.Env {
		if v, ok := strings.CutPrefix(e, "ONTIME_ORT_LIB="); ok {
			ortPath = v
		}
	}
	same(lib, ortPath)
	models, _ := filepath.Glob("../../../../models/*.onnx")
	if len(models) == 0 {
		t.Fatal("no models")
	}
	for _, m := range models {
		same(m, path.Join(Models, filepath.Base(m)))
	}
	same("../../../../models/train/train.py", Models+"/train/train.py")
	// Closure: every ELF file's needs are in the library directory (the
	// loader's own name is the loader, loaded first), and the binary's
	// loader is where it asks for it.
	interp, _ := interpreter(bin)
	for p, data := range files {
		f, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			continue // not ELF
		}
		needed, _ := f.ImportedLibraries()
		for _, so := range needed {
			if _, ok := files[path.Join(LibDir, so)]; !ok && so != path.Base(interp) {
				t.Errorf("%s needs %s, which the image lacks", p, so)
			}
		}
		f.Close()
	}
	if _, ok := files[interp]; !ok {
		t.Errorf("the loader %s is not in the image", interp)
	}

	// Run it: unpack the layer and chroot into it (root only).
	if os.Geteuid() != 0 {
		t.Skip("not root: cannot chroot into the image to run it (the contents are checked above)")
	}
	root := filepath.Join(dir, "root")
	for p, data := range files {
		os.MkdirAll(filepath.Join(root, path.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(root, p), data, 0o755)
	}
	for _, d := range []string{"tmp", "var/lib/ontime", "var/cache/ontime"} {
		os.MkdirAll(filepath.Join(root, d), 0o1777)
	}
	run := func(args ...string) string {
		cmd := exec.Command("chroot", append([]string{root, BinPath}, args...)...)
		cmd.Env = cfg.Config.Env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("inside the image, ontime %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if v := run("--version"); !strings.HasPrefix(v, "ontime ") {
		t.Errorf("--version: %s", v)
	}
	rep := run("bench", "--network", "twobranch", "--methods", "gpght,let", "--pools", "2", "--pool-size", "100", "--quiet")
	if !strings.Contains(rep, "gpght model sha256") || !strings.Contains(rep, "ONNX Runtime 1.24.3") {
		t.Errorf("gpght did not run through ONNX Runtime inside the image:\n%s", rep)
	}
}

// Issue 71, cause 11: the image runs as a numbered user who is not root,
// owns only its state and cache directories (mode 0700, not 1777), says
// --no-token where it serves every address, and carries no test data (the
// upload probe's model bombs under models/testdata, the trainer's tests).
func TestImageUserModesAndNoTestData(t *testing.T) {
	models := t.TempDir()
	for _, f := range []string{"gpght.onnx", "gpght.card.json", "testdata/bigconst.onnx", "testdata/loop.onnx", "train/train.py", "train/test_train.py"} {
		os.MkdirAll(filepath.Join(models, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(models, f), []byte(f), 0o644)
	}
	img, err := Build(Spec{Binary: "/bin/true", Models: models, Tag: "ontime:test", Version: "test", Commit: "abc"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := img.ConfigFile()
	if cfg.Config.User != "10001:10001" || !strings.Contains(strings.Join(cfg.Config.Cmd, " "), "--no-token") {
		t.Errorf("user %q, command %v", cfg.Config.User, cfg.Config.Cmd)
	}
	seen, _ := entries(t, img)
	for _, d := range []string{State, Cache} {
		if h := seen[d]; h == nil || h.Mode != 0o700 || h.Uid != 10001 || h.Gid != 10001 {
			t.Errorf("%s: %+v", d, h)
		}
	}
	for p, h := range seen {
		if h.Mode&0o002 != 0 && p != "/tmp" {
			t.Errorf("%s is writable by anyone: %o", p, h.Mode)
		}
	}
	for _, p := range []string{Models + "/testdata/bigconst.onnx", Models + "/testdata/loop.onnx", Models + "/train/test_train.py"} {
		if seen[p] != nil {
			t.Errorf("%s is in the image", p)
		}
	}
	for _, p := range []string{Models + "/gpght.onnx", Models + "/gpght.card.json", Models + "/train/train.py"} {
		if seen[p] == nil {
			t.Errorf("%s is not in the image", p)
		}
	}
}

// entries are an image's paths (directories without their slash) with
// their headers, and its regular files' contents.
func entries(t *testing.T, img v1.Image) (map[string]*tar.Header, map[string][]byte) {
	t.Helper()
	heads, files := map[string]*tar.Header{}, map[string][]byte{}
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return heads, files
		}
		if err != nil {
			t.Fatal(err)
		}
		heads["/"+strings.TrimSuffix(h.Name, "/")] = h
		if h.Typeflag == tar.TypeReg {
			files["/"+h.Name], _ = io.ReadAll(tr)
		}
	}
}

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ontime-routing/ontime/cmd/ontime/internal/image"
	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/internal/install"
)

// runImage builds the container image for a cluster without a daemon: this
// binary, the models and trainer, the ONNX Runtime library, LAPACK and the
// shared libraries they load, as a tarball `docker load` or `podman load`
// reads (push it with crane, skopeo or docker).
func runImage(_ context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "ontime-image.tar", "the image tarball to write")
	tag := fs.String("tag", "ontime:"+version, "the image's name and tag")
	models := fs.String("models", "", "models directory (default: models/ found above the binary or the working directory)")
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() > 0 {
		return engine.Errorf(engine.EINVALID, "image takes no arguments, got %q", fs.Args())
	}
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	lib, err := ort.FindLibrary()
	if err != nil {
		return fmt.Errorf("the image carries ONNX Runtime: %w", err)
	}
	if *models == "" {
		dir, ok := install.Find("models", install.IsDir)
		if !ok {
			return engine.Errorf(engine.ENOTFOUND, "no models/ directory above the binary or the working directory: give --models DIR")
		}
		*models = dir
	}
	spec := image.Spec{Binary: bin, ORTLib: lib, Models: *models, Tag: *tag, Version: version, Commit: buildCommit(), Dlopened: []string{"liblapack.so.3"}}
	img, err := image.Build(spec)
	if err != nil {
		return err
	}
	if err := image.Write(img, *tag, *out); err != nil {
		return err
	}
	digest, _ := img.Digest()
	size := int64(0)
	if st, err := os.Stat(*out); err == nil {
		size = st.Size()
	}
	fmt.Fprintf(stdout, "wrote %s: %s (%s, %.0f MB); docker load -i %s; entrypoint %s, serving on :8080 by default\n", *out, *tag, digest, float64(size)/1e6, *out, image.BinPath)
	return nil
}

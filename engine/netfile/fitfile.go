// Observed times given with a network: the import's fit.

package netfile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/fit"
)

// open is the file's content as a stream, and a function giving its
// SHA-256 once it was read to its end.
func (f File) open() (io.ReadCloser, func() string, error) {
	if f.Path == "" || f.Data != nil {
		return io.NopCloser(bytes.NewReader(f.Data)), func() string { return Digest(f.Data) }, nil
	}
	in, err := os.Open(f.Path)
	if err != nil {
		return nil, nil, engine.Errorf(engine.ENOTFOUND, "cannot read %s: %v", f.Name, errors.Unwrap(err))
	}
	h := sha256.New()
	return struct {
		io.Reader
		io.Closer
	}{io.TeeReader(bufio.NewReaderSize(in, 1<<20), h), in}, func() string { return hex.EncodeToString(h.Sum(nil)) }, nil
}

// observationFile is the file of observed link times among files, if any.
func observationFile(files []File) *File {
	for i := range files {
		if isObservations(&files[i]) {
			return &files[i]
		}
	}
	return nil
}

func isObservations(f *File) bool {
	return f.Observed || strings.HasSuffix(strings.ToLower(f.Name), ".csv") && fit.LooksLikeObservations(f.Data)
}

// fitObservations gives an accepted network the law fitted to the observed
// times (in the network file's unit); bad observations refuse the import,
// each named by file, line and field.
func fitObservations(net *engine.Network, obs *File, o ImportOptions, rep *ImportReport) (*engine.Network, *ImportReport, error) {
	fitted, frep, err := FitFile(net, *obs, o.Period, o.TimeUnit)
	if err != nil {
		ps, ok := engine.ProblemsOf(err)
		if !ok {
			return nil, rep, err
		}
		rep.Problems = ps
		return nil, rep, ps
	}
	rep.Fit = frep
	fittedNotes(rep, fitted, frep)
	rep.note("%s", frep.Summary())
	return fitted, rep, nil
}

// fittedNotes rewrites the report's notes of the defaults the fit replaced:
// the law and spread rules hold for the links never observed only, and the
// correlation is the fitted one (the report said "correlation: random-psd"
// and then the fit's "fitted-factor").
func fittedNotes(rep *ImportReport, net *engine.Network, frep *fit.Report) {
	unobserved := fmt.Sprintf("for the %d of %d links never observed: ", len(frep.Unobserved), len(net.Links))
	for i, n := range rep.Notes {
		switch {
		case strings.HasPrefix(n, "link-time law:"), strings.HasPrefix(n, "link standard deviations:"), strings.HasPrefix(n, "link means"):
			rep.Notes[i] = unobserved + n
		case strings.HasPrefix(n, "correlation:"), strings.HasPrefix(n, "spatial correlation length:"):
			rep.Notes[i] = fmt.Sprintf("correlation stored: %s, fitted to the observed links' normal scores (rank %d); the links never observed have none", net.Correlation.Model, frep.Rank)
		}
	}
	rep.Notes = slices.Compact(rep.Notes)
}

// FitFile fits the observed times in obs (in timeUnit, "" minutes; rows of
// period, "" all) to net: a copy under the fitted law, its sources naming
// obs. Bad rows name the file, line and field.
func FitFile(net *engine.Network, obs File, period, timeUnit string) (*engine.Network, *fit.Report, error) {
	p, err := fit.ParsePeriod(period)
	if err != nil {
		return nil, nil, err
	}
	in, digest, err := obs.open()
	if err != nil {
		return nil, nil, err
	}
	defer in.Close()
	read, err := fit.ReadObservations(obs.Name, in, net, unitMinutes(timeUnit), p)
	if err != nil {
		return nil, nil, err
	}
	io.Copy(io.Discard, in) // the digest is of the whole file
	fitted, rep, err := fit.Fit(net, read)
	if err != nil {
		return nil, nil, err
	}
	fitted.Sources = append(slices.Clone(fitted.Sources), engine.SourceFile{Path: obs.Name, SHA256: digest()})
	return fitted, rep, nil
}

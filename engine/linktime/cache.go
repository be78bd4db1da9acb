package linktime

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/internal/atomicfile"
)

// A dense correlation model of a city network takes seconds to minutes to
// build (the eigendecomposition of a links × links matrix: 2,836 links,
// about two and a half minutes on two cores with gonum, seconds with the
// system's LAPACK; see symEigen). NewCached keeps each built factor in a cache
// directory under a key of everything it depends on (the network's
// fingerprint: links, means, variances, correlation and law; and, for the
// spatial model, the links' midpoints), so a network's model is built once
// (at import) and read back in a second afterwards, bit for bit the factor
// New builds.

// NewCached is New with dense factors kept in dir ("" : no cache). A cache
// file that cannot be read or does not verify is rebuilt and replaced.
func NewCached(net *engine.Network, dir string) (*Gaussian, error) {
	key, dense := factorKey(net)
	if dir == "" || !dense {
		return New(net)
	}
	path := filepath.Join(dir, "linktime", key+".factor")
	if g, err := newFromFactor(net, path); err == nil {
		return g, nil
	}
	g, err := New(net)
	if err != nil {
		return nil, err
	}
	// A cache that cannot be written costs time, not correctness.
	_ = writeFactor(path, g)
	return g, nil
}

// Cached reports whether NewCached would read net's dense factor from dir
// rather than build it (a file is there; it is verified when read).
func Cached(net *engine.Network, dir string) bool {
	key, dense := factorKey(net)
	if !dense {
		return true // nothing slow to build
	}
	if dir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, "linktime", key+".factor"))
	return err == nil
}

// factorKey names what a dense model's factor and |ρ| summary depend on;
// dense is false for the models that build in no time.
func factorKey(net *engine.Network) (string, bool) {
	if !Dense(net.Correlation.Model) {
		return "", false
	}
	h := sha256.New()
	fmt.Fprintf(h, "v1|%s|", engine.Fingerprint(net, net.Correlation))
	if n := len(net.Links); n > lapackFrom { // the solver's rounding is in the factor
		fmt.Fprintf(h, "%s|", EigenSolver(n))
	}
	if m, _ := LookupCorrModel(net.Correlation.Model); m.Dense && m.Spatial { // the factor reads coordinates the fingerprint does not hold
		for _, l := range net.Links {
			a, b := net.Nodes[l.From], net.Nodes[l.To]
			fmt.Fprintf(h, "%v,%v;", a.X+b.X, a.Y+b.Y)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32], true
}

// The cache file: a header of int64 rows, cols, clipped, rank and float64
// mean |ρ|, max |ρ|, then the factor row-major, then the SHA-256 of all
// that.
const factorHeader = 6 * 8

func writeFactor(path string, g *Gaussian) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	n, r := g.F.Dims()
	var buf bytes.Buffer
	buf.Grow(factorHeader + n*r*8 + sha256.Size)
	for _, v := range []int64{int64(n), int64(r), int64(g.Stats.Clipped), int64(g.Stats.Rank)} {
		binary.Write(&buf, binary.LittleEndian, v)
	}
	binary.Write(&buf, binary.LittleEndian, []float64{g.Stats.MeanAbs, g.Stats.MaxAbs})
	for e := range n {
		binary.Write(&buf, binary.LittleEndian, g.F.RawRowView(e))
	}
	sum := sha256.Sum256(buf.Bytes())
	buf.Write(sum[:])
	return atomicfile.WriteFile(path, buf.Bytes())
}

var errStale = errors.New("cached factor does not fit")

// newFromFactor builds the model around a cached factor.
func newFromFactor(net *engine.Network, path string) (*Gaussian, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) < factorHeader+sha256.Size {
		return nil, io.ErrUnexpectedEOF
	}
	body := data[:len(data)-sha256.Size]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], data[len(body):]) {
		return nil, errStale
	}
	var hdr [4]int64
	var stats [2]float64
	rd := bytes.NewReader(body)
	binary.Read(rd, binary.LittleEndian, &hdr)
	binary.Read(rd, binary.LittleEndian, &stats)
	n, r := int(hdr[0]), int(hdr[1])
	if n != len(net.Links) || r <= 0 || len(body) != factorHeader+n*r*8 {
		return nil, errStale
	}
	raw := make([]float64, n*r)
	if err := binary.Read(rd, binary.LittleEndian, raw); err != nil {
		return nil, err
	}
	for _, v := range raw {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errStale
		}
	}
	// The law's latent parameters come from New on an independent copy
	// (cheap); the factor is the cached one.
	indep := *net
	indep.Correlation = engine.Correlation{Model: Independent}
	g, err := New(&indep)
	if err != nil {
		return nil, err
	}
	g.Spec = net.Correlation
	g.F = mat.NewDense(n, r, raw)
	g.Stats = CorrStats{Clipped: int(hdr[2]), Rank: int(hdr[3]), MeanAbs: stats[0], MaxAbs: stats[1]}
	g.sumScales(net) // a skewed law's realized-scale loadings, from the cached factor
	return g, nil
}

// Dense reports whether a correlation model holds a links × links factor
// (random-psd, spatial, explicit), which takes minutes to build at city size.
func Dense(model string) bool {
	m, ok := LookupCorrModel(model)
	return ok && m.Dense
}

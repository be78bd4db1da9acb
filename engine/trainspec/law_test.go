package trainspec_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/testenv"
	. "github.com/ontime-routing/ontime/engine/trainspec"
)

// TestTrainerDrawsTheSameLaw: under the log-normal law (every link warped)
// the Python trainer turns the same latent rows into the same times as Go
// (to float32's precision), and its own sampler's link means and SDs agree
// with Go's law within sampling error.
func TestTrainerDrawsTheSameLaw(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import torch").Run(); err != nil {
		testenv.Missing(t, "PyTorch for /usr/bin/python3 (make setup installs python3-torch)")
	}
	net, err := builtin.Load(builtin.Ringtown, "")
	if err != nil {
		t.Fatal(err)
	}
	net.Law = linktime.LogNormalLaw
	m, err := linktime.New(net)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Write(dir, net, m, Options{ODs: net.ODs, BudgetLo: 0.9, BudgetHi: 1.1, ValidationSize: 10}); err != nil {
		t.Fatal(err)
	}
	n, rows := len(net.Links), 200
	rng := rand.New(rand.NewPCG(7, 7))
	lat := make([]float32, rows*n)
	for i := range lat {
		e := i % n
		lat[i] = float32(m.Latent[e] + 3*m.SD[e]*rng.NormFloat64()) // well into both tails
	}
	in := filepath.Join(dir, "latent.f32")
	writeF32(t, in, lat)
	out := filepath.Join(dir, "times.f32")
	const draws = 20000
	cmd := exec.Command("/usr/bin/python3", testenv.Trainer(t), "law", "--spec", dir, "--out", out, "--latent", in, "--draws", "20000", "--seed", "3")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	got := readF32(t, out)
	worst := 0.0
	for i, x := range got {
		want := m.TimeOf(i%n, float64(lat[i]))
		worst = math.Max(worst, math.Abs(float64(x)-want)/want)
	}
	if worst > 2e-5 {
		t.Errorf("the trainer's times differ from Go's by up to %.2g relative (float32: 2e-5)", worst)
	}
	sample := readF32(t, out+".draws")
	for e := range n {
		var s, s2 float64
		for i := range draws {
			x := float64(sample[i*n+e])
			s += x
			s2 += x * x
		}
		mean := s / draws
		sd := math.Sqrt(s2/draws - mean*mean)
		want, wantSD := net.Links[e].Mean, net.Links[e].SD()
		// 5 standard errors of the mean; the SD of a log-normal sample within 15%
		if math.Abs(mean-want) > 5*wantSD/math.Sqrt(draws) || math.Abs(sd-wantSD) > 0.15*wantSD {
			t.Errorf("link %d: the trainer's sampler has mean %.4f SD %.4f, the law %.4f %.4f", e, mean, sd, want, wantSD)
		}
	}
	t.Logf("times: worst relative difference %.2g over %d latent values", worst, len(lat))
}

func writeF32(t *testing.T, path string, xs []float32) {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readF32(t *testing.T, path string) []float32 {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

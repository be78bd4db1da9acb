package perf

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/netfile"
)

// scaleNetworks are the real networks of the data directory, largest first.
var scaleNetworks = []struct{ name, file string }{
	{"Chicago Regional", "ChicagoRegional_net.tntp"},
	{"Chicago Sketch", "ChicagoSketch_net.tntp"},
	{"Anaheim", "Anaheim_net.tntp"},
	{"Berlin Mitte Center", "berlin-mitte-center_net.tntp"},
	{"Sioux Falls", "SiouxFalls_net.tntp"},
}

// scale finds, for each correlation model, the largest of the real
// networks it builds, and measures it there.
func scale(ctx context.Context, c *Config, w io.Writer) error {
	fmt.Fprintf(w, "Each correlation model tried on the real TNTP networks of the data directory, largest first, as\n")
	fmt.Fprintf(w, "`ontime networks add` imports them (means from free-flow times, the default CV); the first it builds\n")
	fmt.Fprintf(w, "is the largest it handles. Build is the model's construction (the dense models' covariance\n")
	fmt.Fprintf(w, "factorization); memory is the heap the model holds; realizations/s on one goroutine, pools of 200.\n")
	fmt.Fprintf(w, "`explicit` shares `random-psd`'s dense factorization and limit.\n\n")
	fmt.Fprintf(w, "| model | largest network handled | links | build s | model MB | realizations/s | larger networks |\n|---|---|---:|---:|---:|---:|---|\n")
	for _, corr := range []engine.Correlation{
		{Model: "independent"},
		{Model: linktime.SpatialFactor, Strength: 0.5, Factors: linktime.DefaultFactors},
		{Model: "spatial", Strength: 0.5},
		{Model: "random-psd", Seed: 1},
	} {
		var refused []string
		found := false
		for _, sn := range scaleNetworks {
			if err := ctx.Err(); err != nil {
				return err
			}
			path := filepath.Join(c.DataDir, "tntp", sn.file)
			if _, err := os.Stat(path); err != nil {
				refused = append(refused, sn.name+": not in the data directory")
				continue
			}
			files, err := netfile.ReadFiles(path)
			if err != nil {
				return err
			}
			net, _, err := netfile.Import(files, netfile.ImportOptions{Corr: corr})
			if err != nil {
				refused = append(refused, fmt.Sprintf("%s: %v", sn.name, err))
				continue
			}
			fmt.Fprintf(c.Log, "perf: %s on %s (%d links) …\n", corr.Model, sn.name, len(net.Links))
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			t0 := time.Now()
			model, err := linktime.New(net)
			if err != nil {
				refused = append(refused, fmt.Sprintf("%s (%d links): %v", sn.name, len(net.Links), err))
				continue
			}
			build := time.Since(t0).Seconds()
			runtime.GC()
			runtime.ReadMemStats(&after)
			held := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
			rate := drawRate(net, model, 200, 2*time.Second)
			runtime.KeepAlive(model)
			others := "—"
			if len(refused) > 0 {
				others = ""
				for i, r := range refused {
					if i > 0 {
						others += "; "
					}
					r = strings.Join(strings.Fields(r), " ") // one table row
					if len(r) > 160 {
						r = r[:157] + "…"
					}
					others += r
				}
			}
			fmt.Fprintf(w, "| %s | %s | %d | %.1f | %.1f | %.0f | %s |\n", corr.Model, sn.name, len(net.Links), build, held, rate, others)
			found = true
			break
		}
		if !found {
			fmt.Fprintf(w, "| %s | none of the networks | | | | | %v |\n", corr.Model, refused)
		}
	}
	fmt.Fprintln(w)
	return nil
}

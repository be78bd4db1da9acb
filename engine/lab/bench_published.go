package lab

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"

	"github.com/ontime-routing/ontime/engine/bench"
)

// publishedFS holds the committed benchmark reports, one per network
// (published/NET.json), written by scripts/results.sh beside
// docs/results.md: the benchmarks page shows them on arrival, before anyone
// has run anything on this machine.
//
//go:embed published/*.json
var publishedFS embed.FS

// Published returns the committed report of the network, or nil when there
// is none or when it was computed on other data: its source files' digests
// and every OD pair's LET time must match the network opened here, so a
// user's edited or re-fetched files never show numbers that are not theirs.
// The report is shared: callers read it, never change it.
func (n *Net) Published() (*bench.Report, error) {
	n.publishedOnce.Do(func() { n.published, n.publishedErr = n.readPublished() })
	return n.published, n.publishedErr
}

// readPublished reads and checks the embedded report (see Published).
func (n *Net) readPublished() (*bench.Report, error) {
	b, err := fs.ReadFile(publishedFS, "published/"+n.Net.Name+".json")
	if err != nil {
		return nil, nil // none committed for this network
	}
	rep := new(bench.Report)
	if err := json.Unmarshal(b, rep); err != nil {
		return nil, fmt.Errorf("published/%s.json: %w", n.Net.Name, err)
	}
	if why := n.mismatch(rep); why != "" {
		return nil, fmt.Errorf("published/%s.json does not fit the network opened here: %s", n.Net.Name, why)
	}
	rep.EnsureLeaders() // published before leaders were stored: marked once here
	return rep, nil
}

// mismatch says how a report's network differs from n's, or "" when it is
// the same network as far as the report can tell.
func (n *Net) mismatch(rep *bench.Report) string {
	have := map[string]string{}
	for _, f := range n.Net.Sources {
		have[f.SHA256] = f.Path
	}
	if len(rep.Provenance.DataFiles) != len(n.Net.Sources) {
		return fmt.Sprintf("%d source files, %d here", len(rep.Provenance.DataFiles), len(n.Net.Sources))
	}
	for _, f := range rep.Provenance.DataFiles {
		if _, ok := have[f.SHA256]; !ok {
			return fmt.Sprintf("source %s (sha256 %.12s…) differs", f.Path, f.SHA256)
		}
	}
	for _, od := range rep.ODs {
		o, err := n.Net.ParseOD(od.OD)
		if err != nil {
			return err.Error()
		}
		let, err := n.Validate(o, 1)
		if err != nil {
			return err.Error()
		}
		if math.Abs(let-od.LETTime) > 1e-9*math.Max(1, let) {
			return fmt.Sprintf("OD %s: LET time %.6f min, %.6f here", od.OD, od.LETTime, let)
		}
	}
	return ""
}

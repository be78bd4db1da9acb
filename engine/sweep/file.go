// Package sweep runs a grid of benchmarks as independent tasks on a shared
// directory (a Slurm array, a Kubernetes Indexed Job, or one machine), and
// merges their parts into the reports `ontime bench` gives for each
// instance run whole, bit for bit. Nothing here schedules, retries or
// moves data: the cluster does; a task only computes its part and writes it
// atomically, so a repeated task is harmless.
package sweep

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/policy"
)

// File is a sweep file (TOML): a grid of benchmark instances, each a
// network × a correlation setting × an instance seed, every one evaluated
// with the same methods, budgets and pools.
type File struct {
	Name     string    `toml:"name"`
	Methods  []string  `toml:"methods"`
	Focus    string    `toml:"focus"`   // the Holm family's method (default: the first)
	Budgets  []float64 `toml:"budgets"` // factors of each OD pair's LET time
	Pools    int       `toml:"pools"`
	PoolSize int       `toml:"pool_size"`
	Seeds    []uint64  `toml:"seeds"` // instance seeds (ontime bench --seed); default [0]
	// Shards splits each instance's pools, per OD pair, into this many
	// tasks (at most one pool a task).
	Shards       int           `toml:"shards"`
	Networks     []NetworkSpec `toml:"networks"`
	Correlations []CorrSpec    `toml:"correlations"` // default: each network's own
}

// NetworkSpec names a network (built-in or stored) and its OD pairs.
type NetworkSpec struct {
	Name string   `toml:"name" json:"name"`
	ODs  []string `toml:"ods" json:"ods,omitempty"` // ORIGIN-DEST; default: the network's benchmark pairs
}

// CorrSpec is one correlation setting; the zero value is the network's own.
type CorrSpec struct {
	Model    string  `toml:"model" json:"model,omitempty"` // independent, random-psd, spatial, spatial-factor
	Strength float64 `toml:"strength" json:"strength,omitempty"`
	Length   float64 `toml:"length" json:"length,omitempty"` // 0: a tenth of the network's extent
	Seed     *uint64 `toml:"seed" json:"seed,omitempty"`     // random-psd
	Factors  int     `toml:"factors" json:"factors,omitempty"`
}

// sweepCorrNames are a sweep file's names for the correlation settings.
var sweepCorrNames = linktime.CorrFieldNames{"model", "seed", "strength", "length", "factors"}

// choice is the spec as linktime's correlation choice.
func (c CorrSpec) choice() linktime.CorrChoice {
	return linktime.CorrChoice{Model: c.Model, Seed: c.Seed, Strength: c.Strength, Length: c.Length, Factors: c.Factors}
}

// ReadFile reads and checks a sweep file. Errors name the file, the line
// and the field.
func ReadFile(path string) (*File, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f File
	md, err := toml.Decode(string(text), &f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, engine.Errorf(engine.EINVALID, "%s:%d: %s", path, pe.Position.Line, pe.Message)
		}
		// A value of the wrong type: "toml: line 3 (last key "pools"): incompatible types: …".
		if m := typeErr.FindStringSubmatch(err.Error()); m != nil {
			return nil, engine.Errorf(engine.EINVALID, "%s:%s: %s: %s", path, m[1], m[2], m[3])
		}
		return nil, engine.Errorf(engine.EINVALID, "%s: %v", path, err)
	}
	at := func(table string, i int, key string) string {
		return fmt.Sprintf("%s:%d: %s", path, lineOf(string(text), table, i, key), field(table, i, key))
	}
	if u := md.Undecoded(); len(u) > 0 {
		k := u[0]
		table, key := "", k.String()
		if len(k) > 1 {
			table, key = k[0], k[len(k)-1]
		}
		return nil, engine.Errorf(engine.EINVALID, "%s: unknown field (the fields are name, methods, focus, budgets, pools, pool_size, seeds, shards, [[networks]] name and ods, [[correlations]] model, strength, length, seed and factors)", at(table, -1, key))
	}
	if err := f.check(at); err != nil {
		return nil, err
	}
	return &f, nil
}

func (f *File) check(at func(table string, i int, key string) string) error {
	bad := func(table string, i int, key, format string, args ...any) error {
		return engine.Errorf(engine.EINVALID, "%s: %s", at(table, i, key), fmt.Sprintf(format, args...))
	}
	if len(f.Methods) == 0 {
		return bad("", -1, "methods", "give at least one method")
	}
	for _, m := range f.Methods {
		if _, err := policy.Lookup(m); err != nil {
			return bad("", -1, "methods", "%s", engine.ErrorMessage(err))
		}
	}
	if f.Focus != "" && !slices.Contains(f.Methods, f.Focus) {
		return bad("", -1, "focus", "%s is not among the methods", f.Focus)
	}
	if len(f.Budgets) == 0 {
		return bad("", -1, "budgets", "give at least one budget factor")
	}
	for _, b := range f.Budgets {
		if !(b > 0) {
			return bad("", -1, "budgets", "budget factor %v must be positive", b)
		}
	}
	if f.Pools == 0 {
		f.Pools = bench.Defaults.Pools
	}
	if f.PoolSize == 0 {
		f.PoolSize = bench.Defaults.PoolSize
	}
	if f.Pools < 2 {
		return bad("", -1, "pools", "%d: the paired tests need at least 2 pools", f.Pools)
	}
	if f.PoolSize < 1 {
		return bad("", -1, "pool_size", "%d: give at least one realization a pool", f.PoolSize)
	}
	if len(f.Seeds) == 0 {
		f.Seeds = []uint64{0}
	}
	if f.Shards == 0 {
		f.Shards = 1
	}
	if f.Shards < 1 {
		return bad("", -1, "shards", "%d: give 1 or more", f.Shards)
	}
	if len(f.Networks) == 0 {
		return bad("", -1, "networks", "give at least one [[networks]] table with a name")
	}
	for i, n := range f.Networks {
		if n.Name == "" {
			return bad("networks", i, "name", "give the network's name (built-in or stored)")
		}
	}
	if len(f.Correlations) == 0 {
		f.Correlations = []CorrSpec{{}}
	}
	for i, c := range f.Correlations {
		if f, msg := c.choice().Problem(); msg != "" {
			if f == linktime.CorrFieldModel {
				msg += " (or leave it out for the network's own)"
			}
			return bad("correlations", i, sweepCorrNames[f], "%s", msg)
		}
	}
	return nil
}

// field names a field as a reader of the file finds it: networks[2].ods.
func field(table string, i int, key string) string {
	switch {
	case table == "":
		return key
	case i < 0:
		return table + "." + key
	}
	return fmt.Sprintf("%s[%d].%s", table, i, key)
}

var typeErr = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

var header = regexp.MustCompile(`^\s*\[\[?\s*([A-Za-z0-9_.-]+)\s*\]?\]`)

// lineOf finds the line of key in the i-th [[table]] (i < 0: the first
// table of that name; table "": the top level), 0 when it is not written.
func lineOf(text, table string, i int, key string) int {
	cur, seen := "", map[string]int{}
	keyRe := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(key) + `"?\s*=`)
	for n, line := range strings.Split(text, "\n") {
		if m := header.FindStringSubmatch(line); m != nil {
			cur = m[1]
			seen[cur]++
			continue
		}
		if cur == table && (table == "" || i < 0 || seen[cur] == i+1) && keyRe.MatchString(line) {
			return n + 1
		}
	}
	return 0
}

package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// cacheKey fingerprints what a learner's training depends on: the method and
// its settings, the network's links, means and variances, the correlation,
// the benchmark instance, and the destinations with their largest budgets.
func (env *Env) cacheKey(method string, settings any) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s|%v|%s|%d|", method, settings, env.Net.PoolKey(), env.Seed)
	for _, l := range env.Net.Links {
		fmt.Fprintf(h, "%d>%d:%v:%v;", l.From, l.To, l.Mean, l.Var)
	}
	c := env.Model.Spec
	fmt.Fprintf(h, "|%s|%d|%v|%v|%v", c.Model, c.Seed, c.Strength, c.Length, c.Covariance)
	if c.Factors != 0 { // appended only when set, so existing cache keys stay
		fmt.Fprintf(h, "|factors %d", c.Factors)
	}
	mb := env.MaxBudget()
	ds := make([]int, 0, len(mb))
	for d := range mb {
		ds = append(ds, d)
	}
	slices.Sort(ds)
	for _, d := range ds {
		fmt.Fprintf(h, "|%d:%v", d, mb[d])
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}

// cached loads a trained learner from the cache, or trains it and stores it.
// A cache that cannot be read or written only costs a retraining.
func cached[T any](env *Env, method string, settings any, train func() (T, error)) (T, bool, error) {
	var v T
	if env.CacheDir == "" {
		v, err := train()
		return v, false, err
	}
	path := filepath.Join(env.CacheDir, method+"-"+env.cacheKey(method, settings)+".gob")
	if b, err := os.ReadFile(path); err == nil {
		if gob.NewDecoder(bytes.NewReader(b)).Decode(&v) == nil {
			return v, true, nil
		}
	}
	v, err := train()
	if err != nil {
		return v, false, err
	}
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(v) == nil && os.MkdirAll(env.CacheDir, 0o755) == nil {
		tmp := path + ".tmp"
		if os.WriteFile(tmp, buf.Bytes(), 0o644) == nil {
			_ = os.Rename(tmp, path)
		}
	}
	return v, false, nil
}

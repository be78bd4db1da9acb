package lab

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// A dense link-time model's build is reported while it runs: which network,
// whether it waits for another build or is being factorized, for how long,
// and about how long it takes. The factorization (one eigen decomposition)
// has no progress of its own, so the estimate is its cost, proportional to
// the cube of the link count, at the rate the last build on this machine
// ran.

// ModelBuild is a dense model's build as a page shows it.
type ModelBuild struct {
	Network     string
	Links       int
	Correlation string
	Waiting     bool          // another network's model is being built first
	Elapsed     time.Duration // in its turn (0 while waiting)
	Estimate    time.Duration // the whole factorization, about
	Measured    bool          // Estimate comes from a build on this machine
}

// Fraction is how far the build is by its estimate, below 1 until done.
func (b ModelBuild) Fraction() float64 {
	if b.Waiting || b.Estimate <= 0 {
		return 0
	}
	return math.Min(0.99, b.Elapsed.Seconds()/b.Estimate.Seconds())
}

// BuildingError is Open's answer while a network's model is built: an
// EBUSY error carrying the build's progress.
type BuildingError struct {
	Build ModelBuild
	err   *engine.Error
}

func (e *BuildingError) Error() string { return e.err.Error() }
func (e *BuildingError) Unwrap() error { return e.err }

// AsBuilding finds a build's progress in err.
func AsBuilding(err error) (ModelBuild, bool) {
	var b *BuildingError
	if errors.As(err, &b) {
		return b.Build, true
	}
	return ModelBuild{}, false
}

func newBuildingError(b ModelBuild) *BuildingError {
	var state string
	if b.Waiting {
		state = "it waits for another network's model, then takes " + aboutDuration(b.Estimate)
	} else {
		state = fmt.Sprintf("%s so far of %s", b.Elapsed.Round(time.Second), aboutDuration(b.Estimate))
	}
	msg := fmt.Sprintf("the link-time model of %s (%d links, %s correlation, dense) is being built, once, for everyone: %s; this page tries again by itself. The map and the network's facts are on its network page; a spatial-factor correlation needs no such build",
		b.Network, b.Links, b.Correlation, state)
	return &BuildingError{Build: b, err: &engine.Error{Code: engine.EBUSY, Message: msg}}
}

// EstimateText is the estimate in words ("about 28 s", "about 7 min").
func (b ModelBuild) EstimateText() string { return aboutDuration(b.Estimate) }

func aboutDuration(d time.Duration) string {
	if d < 90*time.Second {
		return fmt.Sprintf("about %d s", int(math.Ceil(d.Seconds())))
	}
	return fmt.Sprintf("about %d min", int(math.Round(d.Minutes())))
}

// denseRate is the seconds per link³ of a dense factorization: measured
// here on two cores (referenceDenseRate), then learnt from each build.
type denseRate struct {
	mu       sync.Mutex
	rate     float64
	measured bool
}

// referenceDenseRate is the seconds per link³ that a dense model of 2,950
// links (Chicago Sketch, random-psd) took to build here on two cores, by
// the solver that decomposes it: gonum 173 s, the system's LAPACK
// (OpenBLAS's dsyevd) 6.5 s.
func referenceDenseRate(links int) float64 {
	s := 173.0
	if linktime.EigenSolver(links) != "gonum" {
		s = 6.5
	}
	return s / (2950.0 * 2950.0 * 2950.0)
}

func (r *denseRate) estimate(links int) (time.Duration, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rate := r.rate
	if rate == 0 {
		rate = referenceDenseRate(links)
	}
	n := float64(links)
	return time.Duration(rate * n * n * n * float64(time.Second)), r.measured
}

// learn records a finished build; small ones are dominated by more than
// the factorization and teach nothing.
func (r *denseRate) learn(links int, took time.Duration) {
	if links < 1000 || took <= 0 {
		return
	}
	n := float64(links)
	r.mu.Lock()
	r.rate, r.measured = took.Seconds()/(n*n*n), true
	r.mu.Unlock()
}

// buildOf reports e's dense build, if one is under way (the model not yet
// ready).
func (l *Lab) buildOf(name string, e *netEntry) (ModelBuild, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.links == 0 {
		return ModelBuild{}, false // still being read
	}
	b := ModelBuild{Network: name, Links: e.links, Correlation: e.corr, Waiting: e.turn.IsZero()}
	if !b.Waiting {
		b.Elapsed = time.Since(e.turn)
	}
	b.Estimate, b.Measured = l.denseRate.estimate(e.links)
	return b, true
}

// denseCostNote tells an importer what a dense correlation costs before
// they save: minutes at a few thousand links, where the spatial-factor
// correlation takes seconds ("" when the model is quick or cached).
func (l *Lab) denseCostNote(net *engine.Network) string {
	if !SlowModel(net) || linktime.Cached(net, l.opts.CacheDir) {
		return ""
	}
	est, _ := l.denseRate.estimate(len(net.Links))
	return fmt.Sprintf("cost of the correlation: %s is dense, so its link-time model over %d links takes %s to build on this machine, once, after you save (the map and facts open at once; comparisons wait for it); the spatial-factor correlation builds in seconds at any size",
		net.Correlation.Model, len(net.Links), aboutDuration(est))
}

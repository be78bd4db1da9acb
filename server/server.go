// Package server is ontime's dashboard over HTTP: chi routes, templ pages,
// websocket streams and background benchmark jobs. Every figure it shows is
// computed by the engine (package lab and below); handlers parse requests,
// call the lab and render.
package server

import (
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/ontime-routing/ontime/engine/lab"
)

// Deps are what the server needs.
type Deps struct {
	Lab     *lab.Lab
	Log     *slog.Logger
	Version string
	Assets  fs.FS // the bundled front end (assets.FS)
	// StepDelay paces the comparison animation between steps (0: as fast
	// as the socket takes them, for tests).
	StepDelay time.Duration
	// MaxStreams and MaxStreamsPerClient bound concurrent streams (0: the
	// defaults; negative: no bound).
	MaxStreams, MaxStreamsPerClient int
	// Token, when set, is needed for every change (see requireToken).
	Token string
	// Hosts are the names besides IP addresses and localhost that requests
	// may be addressed to (checkHost); nil: any (tests). ontime serve sets
	// it from --host.
	Hosts []string
	// Tiles is an optional tile server for the maps of lon/lat networks;
	// one whose URL Tiles.Origin refuses is left out.
	Tiles Tiles
}

type server struct {
	Deps
	tileOrigin string // what img-src allows besides 'self' (Tiles)
	maps       *mapCache
	streams    *streamLimit
	uploads    *streamLimit
	plans      *streamLimit
	metrics    *metrics
}

// NewServer returns the dashboard's handler.
func NewServer(d Deps) http.Handler {
	_, h := newServer(d)
	return h
}

// newServer is NewServer, also returning the server (tests read its
// bounds' counts instead of waiting for a time).
func newServer(d Deps) (*server, http.Handler) {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	s := &server{Deps: d, maps: &mapCache{}, streams: &streamLimit{max: orDefault(d.MaxStreams, DefaultMaxStreams), per: orDefault(d.MaxStreamsPerClient, DefaultMaxStreamsPerClient)}}
	s.uploads = &streamLimit{max: MaxUploads, per: MaxUploadsPerClient, what: "uploads", doing: "receiving"}
	s.plans = &streamLimit{max: MaxPlans, per: MaxPlansPerClient, what: "plans", doing: "computing"}
	s.metrics = newMetrics(s)
	if origin, err := d.Tiles.Origin(); err != nil {
		s.Tiles = Tiles{}
	} else {
		s.tileOrigin = origin
	}
	r := chi.NewRouter()
	s.routes(r)
	return s, r
}

// orDefault is v, def for 0, and 0 (no bound) for a negative v.
func orDefault(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

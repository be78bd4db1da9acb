package server

import (
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/ontime-routing/ontime/engine"
)

// Default bounds on concurrent streams (comparisons and live runs): each
// holds a goroutine, a websocket and its computation. The total suits a
// class (the load target is 200 sessions); one client may hold a few tabs.
const (
	// DefaultStepDelay paces a comparison's animation: a step every 350
	// ms reads as a race on the map.
	DefaultStepDelay           = 350 * time.Millisecond
	DefaultMaxStreams          = 256
	DefaultMaxStreamsPerClient = 8
)

// streamLimit counts open streams in total and per client address.
type streamLimit struct {
	mu        sync.Mutex
	total     int
	perClient map[string]int
	max, per  int // 0: no bound
}

// clientOf is the address a request came from, without its port: the key
// of the per-client bounds (streams here, jobs in the jobs service).
func clientOf(r *http.Request) string {
	client, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return client
}

// acquire takes a slot for r's client, or says which bound is reached.
func (l *streamLimit) acquire(r *http.Request) (release func(), err error) {
	client := clientOf(r)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.max > 0 && l.total >= l.max {
		return nil, engine.Errorf(engine.ETOOMANY, "the dashboard is running %d streams, its limit: try again when one ends", l.total)
	}
	if l.per > 0 && l.perClient[client] >= l.per {
		return nil, engine.Errorf(engine.ETOOMANY, "you have %d streams open, the limit for one address: close a comparison or live run first", l.perClient[client])
	}
	if l.perClient == nil {
		l.perClient = map[string]int{}
	}
	l.total++
	l.perClient[client]++
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.total--
		if l.perClient[client]--; l.perClient[client] == 0 {
			delete(l.perClient, client)
		}
	}, nil
}

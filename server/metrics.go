package server

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ontime-routing/ontime/engine"
)

// metrics are the service's numbers in Prometheus' text format, at
// GET /metrics: requests by route pattern (never a path: a network's name
// is a path's part, not the pattern's), status and duration; jobs by kind
// and state; worker runs by kind and outcome; streams, uploads and plans
// under way; what the state directory stores against its quota; the
// database's size; and Go's and the process's own.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newMetrics(s *server) *metrics {
	m := &metrics{reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ontime_http_requests_total", Help: "HTTP requests answered, by route pattern, method and status."},
			[]string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "ontime_http_request_duration_seconds", Help: "Time to answer an HTTP request (a stream: its whole session), by route pattern and method.",
			Buckets: []float64{.005, .025, .1, .5, 1, 5, 30, 120, 600}}, []string{"route", "method"}),
	}
	m.reg.MustRegister(m.requests, m.duration, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		labCollector{s})
	return m
}

// count is the middleware that counts each request once it is answered.
func (m *metrics) count(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		t0 := time.Now()
		next.ServeHTTP(ww, r)
		route := "unmatched"
		if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
			route = rc.RoutePattern()
		}
		status := ww.Status()
		if status == 0 {
			status = http.StatusOK
		}
		m.requests.WithLabelValues(route, r.Method, strconv.Itoa(status)).Inc()
		m.duration.WithLabelValues(route, r.Method).Observe(time.Since(t0).Seconds())
	})
}

// handleMetrics serves GET /metrics; with a class token it needs the token
// (Authorization: Bearer, or the class's cookie), as changes do.
func (s *server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	if s.Token != "" && !s.hasToken(r) {
		s.fail(w, r, engine.Errorf(engine.EFORBIDDEN, "this dashboard's metrics need its token: send Authorization: Bearer TOKEN"))
		return
	}
	promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}).ServeHTTP(w, r)
}

// labCollector reads the lab's counts at each scrape.
type labCollector struct{ s *server }

var (
	descJobs       = prometheus.NewDesc("ontime_jobs", "Jobs kept (this process's and the state directory's), by kind and state.", []string{"kind", "state"}, nil)
	descWorkerRuns = prometheus.NewDesc("ontime_worker_runs_total", "Worker processes run, by kind and outcome (answered, memory: past its memory limit, stopped: by its time limit or its caller, failed).", []string{"kind", "outcome"}, nil)
	descUnderWay   = prometheus.NewDesc("ontime_under_way", "Work under way that the dashboard bounds: websocket streams, uploads being received, plans.", []string{"what"}, nil)
	descStored     = prometheus.NewDesc("ontime_stored", "What the state directory stores: networks, models, bytes.", []string{"what"}, nil)
	descQuota      = prometheus.NewDesc("ontime_quota", "The state directory's quota: networks, models, bytes, networks_per_client (-1: no bound).", []string{"what"}, nil)
	descStoreFile  = prometheus.NewDesc("ontime_store_file_bytes", "The state database's size on disk (its file and write-ahead log).", nil, nil)
)

func (c labCollector) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(c, ch) }

func (c labCollector) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for what, l := range map[string]*streamLimit{"websocket_sessions": c.s.streams, "uploads": c.s.uploads, "plans": c.s.plans} {
		gauge(descUnderWay, float64(l.held()), what)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	t, err := c.s.Lab.Tally(ctx)
	for k, n := range t.Jobs {
		gauge(descJobs, float64(n), k.Kind, k.State)
	}
	for _, w := range t.Workers {
		ch <- prometheus.MustNewConstMetric(descWorkerRuns, prometheus.CounterValue, float64(w.N), w.Kind, w.Outcome)
	}
	if err != nil {
		return // a state directory that cannot be read: no storage numbers
	}
	gauge(descStored, float64(t.Usage.Networks), "networks")
	gauge(descStored, float64(t.Usage.Models), "models")
	gauge(descStored, float64(t.Usage.Bytes), "bytes")
	gauge(descQuota, float64(t.Quota.Networks), "networks")
	gauge(descQuota, float64(t.Quota.Models), "models")
	gauge(descQuota, float64(t.Quota.Bytes), "bytes")
	gauge(descQuota, float64(t.Quota.NetworksPerClient), "networks_per_client")
	gauge(descStoreFile, float64(t.StoreBytes))
}

package server

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-chi/chi/v5/middleware"
)

// redactedQuery is a request's query as the log writes it: the value of
// any parameter named like a token replaced, so that the class's token
// (?token=…) never lands in a log file.
func redactedQuery(raw string) string {
	if !strings.Contains(strings.ToLower(raw), "token") {
		return raw
	}
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		name, _, _ := strings.Cut(p, "=")
		n, err := url.QueryUnescape(name)
		if err != nil {
			n = name
		}
		if strings.Contains(strings.ToLower(n), "token") {
			parts[i] = name + "=REDACTED"
		}
	}
	return strings.Join(parts, "&")
}

// logRequests logs every request at debug level (`ontime serve -v` shows
// them): method, path, status, bytes, duration and the request's id. A
// stream is logged when it ends.
func (s *server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.Log.Enabled(r.Context(), slog.LevelDebug) { // the dashboard's -v
			next.ServeHTTP(w, r)
			return
		}
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		t0 := time.Now()
		defer func() {
			s.Log.Debug("request", "method", r.Method, "path", r.URL.Path, "query", redactedQuery(r.URL.RawQuery), "status", ww.Status(),
				"bytes", ww.BytesWritten(), "ms", float64(time.Since(t0).Microseconds())/1000, "id", middleware.GetReqID(r.Context()))
		}()
		next.ServeHTTP(ww, r)
	})
}

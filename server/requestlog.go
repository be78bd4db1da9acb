package server

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5/middleware"
)

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
			s.Log.Debug("request", "method", r.Method, "path", r.URL.Path, "query", r.URL.RawQuery, "status", ww.Status(),
				"bytes", ww.BytesWritten(), "ms", float64(time.Since(t0).Microseconds())/1000, "id", middleware.GetReqID(r.Context()))
		}()
		next.ServeHTTP(ww, r)
	})
}

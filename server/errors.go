package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/web"
)

// codes maps the engine's error codes to HTTP statuses, in one place.
var codes = map[string]int{
	engine.EINVALID:     http.StatusBadRequest,
	engine.ENOTFOUND:    http.StatusNotFound,
	engine.EINTERNAL:    http.StatusInternalServerError,
	engine.ECONFLICT:    http.StatusConflict,
	engine.ETOOMANY:     http.StatusTooManyRequests,
	engine.EFORBIDDEN:   http.StatusForbidden,
	engine.ESTORAGE:     http.StatusInsufficientStorage,
	engine.ETOOLARGE:    http.StatusRequestEntityTooLarge,
	engine.EBUSY:        http.StatusServiceUnavailable,
	engine.EUNSUPPORTED: http.StatusUnsupportedMediaType,
}

func status(err error) int {
	if s, ok := codes[engine.ErrorCode(err)]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// maxMessage bounds an error answer's message whatever was sent: each
// value it quotes is an excerpt already (engine.Errorf), and a list of
// problems shows its first few; this is the last guard.
const maxMessage = 4096

// message is what a user is shown: the engine's message for errors it
// classified, "internal error" otherwise (the details go to the log).
func message(err error) string {
	var e *engine.Error
	if errors.As(err, &e) && e.Code != engine.EINTERNAL {
		return engine.Clip(e.Error(), maxMessage)
	}
	return "internal error"
}

// wantsJSON reads the request's Accept header: JSON when it names
// application/json ahead of (or without) text/html, and for websocket
// upgrades. Browsers navigating ask for text/html first; the front end's
// fetches ask for JSON.
func wantsJSON(r *http.Request) bool {
	if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		return true // a stream's client reads JSON (docs/protocol.md)
	}
	accept := r.Header.Get("Accept")
	j := strings.Index(accept, "application/json")
	h := strings.Index(accept, "text/html")
	if isAPI(r) {
		// A script's request (no Accept, or */*) gets JSON; a browser's
		// form post to an API route (a job's Cancel) gets its page.
		return h < 0 || j >= 0 && j < h
	}
	return j >= 0 && (h < 0 || j < h)
}

// fail answers an error as JSON or HTML, as the request's Accept asks.
func (s *server) fail(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		// The client left (a page's Stop, a closed tab) and the work ended
		// with its request: nobody reads an answer, and it is no failure.
		s.Log.Info("request stopped by the client", "path", r.URL.Path)
		return
	}
	code := status(err)
	if code == http.StatusInternalServerError {
		s.Log.Error("request failed", "path", r.URL.Path, "err", err)
	}
	if code == http.StatusServiceUnavailable {
		// Being prepared (a model built in the background): ask again, and
		// a page reloads itself.
		w.Header().Set("Retry-After", "10")
		if !wantsJSON(r) && r.Method == http.MethodGet {
			w.Header().Set("Refresh", "10")
		}
	}
	if code == http.StatusTooManyRequests {
		// A bound on work at once: a script waits and asks again.
		w.Header().Set("Retry-After", "30")
	}
	build, building := lab.AsBuilding(err)
	if wantsJSON(r) {
		answer := map[string]any{"error": message(err)}
		var e *engine.Error
		if errors.As(err, &e) && e.Code != engine.EINTERNAL {
			answer["code"] = e.Code
			if e.Field != "" {
				answer["field"] = e.Field
			}
		}
		if building {
			answer["building"] = map[string]any{"network": build.Network, "links": build.Links, "waiting": build.Waiting,
				"elapsed_s": build.Elapsed.Seconds(), "estimate_s": build.Estimate.Seconds(), "fraction": build.Fraction()}
		}
		writeJSONStatus(w, code, answer)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	if building {
		web.BuildingPage(s.page(r, "", "Building the link-time model"), build, message(err)).Render(r.Context(), w)
		return
	}
	web.ErrorPage(s.page(r, "", "Error"), code, message(err)).Render(r.Context(), w)
}

func writeJSON(w http.ResponseWriter, v any) { writeJSONStatus(w, http.StatusOK, v) }

// writeJSONStatus sets the JSON content type before the status: a header set
// after WriteHeader is lost (a 202 went out as text/plain).
func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

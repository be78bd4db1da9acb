package server

import (
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/ontime-routing/ontime/engine"
)

// tokenCookie carries the class token in a browser once its link was opened.
const tokenCookie = "ontime_token"

// requireToken guards changes on a class server: with Deps.Token set, every
// request that is not a plain read (GET, HEAD, OPTIONS) needs the token,
// as `Authorization: Bearer TOKEN` (the CLI, scripts) or as the cookie a
// browser gets by opening any page with ?token=TOKEN once (the link a
// teacher hands out). Viewing, comparisons and live runs need nothing.
func (s *server) requireToken(next http.Handler) http.Handler {
	if s.Token == "" {
		return next
	}
	ok := func(t string) bool { return subtle.ConstantTimeCompare([]byte(t), []byte(s.Token)) == 1 }
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if t := q.Get("token"); t != "" && r.Method == http.MethodGet {
			if !ok(t) {
				s.fail(w, r, engine.Errorf(engine.EFORBIDDEN, "that token is not this dashboard's"))
				return
			}
			http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: t, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q.Del("token")
			u := *r.URL
			u.RawQuery = q.Encode()
			http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther) // the token leaves the address bar
			return
		}
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			next.ServeHTTP(w, r)
			return
		}
		if c, err := r.Cookie(tokenCookie); err == nil && ok(c.Value) {
			next.ServeHTTP(w, r)
			return
		}
		if b, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); found && ok(b) {
			next.ServeHTTP(w, r)
			return
		}
		s.fail(w, r, engine.Errorf(engine.EFORBIDDEN, "changes on this dashboard need its class token: open the link with ?token=… you were given, or send Authorization: Bearer TOKEN"))
	})
}

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
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if t := q.Get("token"); t != "" && r.Method == http.MethodGet {
			if !s.isToken(t) {
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
		if s.hasToken(r) {
			next.ServeHTTP(w, r)
			return
		}
		s.fail(w, r, engine.Errorf(engine.EFORBIDDEN, "changes on this dashboard need its class token: open the link with ?token=… you were given, or send Authorization: Bearer TOKEN"))
	})
}

// isToken says whether t is the class token (in constant time).
func (s *server) isToken(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.Token)) == 1
}

// hasToken says whether r carries the class token: its cookie, or
// Authorization: Bearer.
func (s *server) hasToken(r *http.Request) bool {
	if c, err := r.Cookie(tokenCookie); err == nil && s.isToken(c.Value) {
		return true
	}
	b, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return found && s.isToken(b)
}

package server

import (
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/ontime-routing/ontime/engine"
)

// LocalHosts are the names a dashboard answers to besides IP addresses and
// the names given with `ontime serve --host`.
var LocalHosts = []string{"localhost"}

// checkHost refuses a request whose Host is not this dashboard's: an IP
// address, a localhost name, or a name in Deps.Hosts. DNS rebinding points
// an attacker's name at this server, so a page of that name passes the
// same-origin checks (its Origin equals its Host); it cannot pass this one.
// Deps.Hosts nil turns the check off (a handler embedded in tests).
func (s *server) checkHost(next http.Handler) http.Handler {
	if s.Hosts == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r.Host) {
			s.fail(w, r, engine.Errorf(engine.EFORBIDDEN, "this dashboard does not answer to the name %q: it answers to its IP addresses and %s (start it with --host NAME to add a name)",
				engine.Excerpt(r.Host), strings.Join(append(slices.Clone(LocalHosts), s.Hosts...), ", ")))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *server) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if net.ParseIP(host) != nil {
		return true // an address is no name an attacker can rebind
	}
	return slices.Contains(LocalHosts, host) || strings.HasSuffix(host, ".localhost") || slices.Contains(s.Hosts, host)
}

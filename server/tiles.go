package server

import (
	"net/url"
	"strings"

	"github.com/ontime-routing/ontime/engine"
)

// Tiles is an optional map tile server (`ontime serve --tiles`): a user
// who has one (their own, or a provider they may use) sees longitude/
// latitude networks drawn on its tiles, in Web Mercator. Without it the
// maps draw the network alone in its local metric frame, which needs
// nothing outside the dashboard.
type Tiles struct {
	// URL is the tile template, Leaflet's: {z}/{x}/{y}, and {s} as the
	// host's first label for a server with subdomains a, b, c.
	URL string
	// Attribution is shown in the map's corner (a provider's terms
	// usually ask for it; OpenStreetMap's for its tiles).
	Attribution string
}

// Origin checks the template and returns the origin the pages' Content
// Security Policy must allow images from ("" without tiles).
func (t Tiles) Origin() (string, error) {
	if t.URL == "" {
		return "", nil
	}
	bad := func(why string) (string, error) {
		return "", engine.Errorf(engine.EINVALID, "tile URL %q: %s", engine.Excerpt(t.URL), why)
	}
	for _, p := range []string{"{z}", "{x}", "{y}"} {
		if !strings.Contains(t.URL, p) {
			return bad("it has no " + p + " (a template like https://tile.example.org/{z}/{x}/{y}.png)")
		}
	}
	scheme, after, ok := strings.Cut(t.URL, "://")
	host, _, _ := strings.Cut(after, "/")
	if !ok || host == "" || scheme != "http" && scheme != "https" {
		return bad("it must start http:// or https:// and name a host")
	}
	if first, after, sub := strings.Cut(host, "."); sub && first == "{s}" {
		host = "*." + after
	}
	if strings.ContainsAny(host, "{}") {
		return bad("only {s}, as the host's first label, may stand in the host")
	}
	u, err := url.Parse(scheme + "://" + strings.ReplaceAll(host, "*.", "a."))
	if err != nil || u.Hostname() == "" || u.User != nil {
		return bad("its host does not parse")
	}
	return scheme + "://" + host, nil
}

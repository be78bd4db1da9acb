// Package web holds the dashboard's templ components (the generated
// *_templ.go files are committed) and the view models they render.
package web

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/policy"
)

// Page is what every page's layout needs.
type Page struct {
	Title    string
	Active   string // the nav entry and the front end's page module
	Version  string
	Network  string // the network in view, kept across the nav links
	Networks []NetLink
	Flags    []string // warnings shown on top of the page (requests outside a model's range, …)
	Notes    []string // inputs the page could not use and reset to their defaults
	Present  bool     // presentation mode (lessons): large, high-contrast type, no navigation
	// TileURL and TileAttribution: the user's tile server for maps of
	// lon/lat networks (ontime serve --tiles); empty: no tiles.
	TileURL, TileAttribution string
	// Preload is a URL the page's script fetches first (its map's data):
	// named in the head, its download overlaps the scripts' own.
	Preload string
}

// MapURL is a network's map data as the dashboard's maps read it
// (web/src/map.js's mapURL: the same text, so that the preload is used).
func MapURL(network string) string {
	return "/api/networks/" + url.PathEscape(network) + "?layout=columns"
}

// NetLink is a network in the picker.
type NetLink struct {
	Name      string
	Available bool
}

// NavItem is one entry of the navigation.
type NavItem struct{ Key, Label, Path string }

// Nav lists the pages in the navigation.
var Nav = []NavItem{
	{"networks", "Networks", "/"},
	{"compare", "Compare routes", "/compare"},
	{"live", "Live reliability", "/live"},
	{"teach", "Lessons", "/teach"},
	{"bench", "Benchmarks", "/bench"},
	{"models", "Models", "/models"},
	{"jobs", "Jobs", "/jobs"},
	{"about", "About the numbers", "/about"},
}

// href keeps the network in view on the nav links.
func (p Page) href(item NavItem) string {
	if p.Network == "" || item.Key == "about" || item.Key == "teach" || item.Key == "networks" {
		return item.Path
	}
	return item.Path + "?net=" + url.QueryEscape(p.Network)
}

func f4(x float64) string { return fmt.Sprintf("%.4f", x) }
func f2(x float64) string { return fmt.Sprintf("%.2f", x) }

// f2s writes each of xs with two decimals.
func f2s(xs []float64) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f2(x)
	}
	return out
}
func itoa(i int) string { return fmt.Sprint(i) }

// liveElsewhere says where else Live's rates are counted: Compare counts
// none on a network past its link limit.
func liveElsewhere(f RunForm) string {
	if f.RateLinkLimit > 0 {
		return "Benchmarks counts them on many pools with paired tests (Compare counts none on a network of more than " + grouped(f.RateLinkLimit) + " links)"
	}
	return "Compare counts 1,000 days and Benchmarks many pools with paired tests"
}

// rateTitle explains the compare table's P(on time) column.
func rateTitle(f RunForm) string {
	if f.RateLinkLimit > 0 {
		return "not counted on a network this large (see below the table)"
	}
	return "estimated on 1,000 common test realizations"
}

// grouped writes a count with thousands separated, as the pages' prose
// does (4,000).
func grouped(n int) string { return english.Sprint(n) }

var english = message.NewPrinter(language.English)

func join(s []string) string { return strings.Join(s, ", ") }

// trainingText says how a model was trained, from its card (older cards
// have no expert-iteration rounds).
func trainingText(c *policy.ModelCard) string {
	t := c.Training
	s := fmt.Sprintf("imitation of %s (%d demonstrations)", t.Teacher, t.Demonstrations)
	if t.Rounds > 0 {
		s += fmt.Sprintf(", %d expert-iteration rounds of %d own episodes labelled by rollout", t.Rounds, t.RoundEpisodes)
	}
	if t.PGIterations > 0 {
		s += fmt.Sprintf(", %d policy-gradient steps of %d episodes", t.PGIterations, t.Batch)
	}
	if c.Best != "" {
		s += "; kept checkpoint: " + c.Best
	}
	return s
}

// pairsText lists a model's OD pairs, or counts them when a list would fill
// the page (a model covering every pair of a network).
func pairsText(s []string) string {
	if len(s) > 12 {
		return fmt.Sprintf("%d pairs: %s, …", len(s), strings.Join(s[:5], ", "))
	}
	return join(s)
}

func rangeText(r []float64) string {
	if len(r) != 2 {
		return "–"
	}
	return f2(r[0]) + " – " + f2(r[1]) + " × LET time"
}

func floats(xs []float64) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += " / "
		}
		out += f4(x)
	}
	return out
}

// facts is the network's one-line summary.
func (v NetworkView) facts() string {
	s := english.Sprintf("%d nodes, %d links, coordinates %s, correlation %s", v.Nodes, v.Links, v.Coords, v.Correlation)
	if v.StepCap > 0 {
		s += fmt.Sprintf(", at most %d links per trip", v.StepCap)
	}
	return s + "."
}

// shortCommit is a commit's first seven digits, as git shows it.
func shortCommit(c string) string {
	if c == "" {
		return "(commit not recorded)"
	}
	if len(c) > 7 {
		return c[:7]
	}
	return c
}

// buildBasis says where the estimate comes from.
func buildBasis(b lab.ModelBuild) string {
	if b.Measured {
		return ", from the last build on this machine"
	}
	return ", from a two-core reference machine"
}

// seconds writes a limit for a data attribute ("" for none).
func seconds(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return fmt.Sprint(int(d.Seconds()))
}

// chosenMethods names the ticked methods for a summary.
func chosenMethods(ms []MethodOption) string {
	var names []string
	for _, m := range ms {
		if m.Checked {
			names = append(names, m.Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
func pct(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) }

// countWord writes a small count as a word, capitalised, to open a
// sentence ("Six short lessons"); larger counts as digits.
func countWord(n int) string {
	words := []string{"No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten"}
	if n >= 0 && n < len(words) {
		return words[n]
	}
	return strconv.Itoa(n)
}

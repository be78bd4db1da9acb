// Package ontime is the module root; it only carries the generate line for
// the dashboard's templ components (web/*.templ → web/*_templ.go, which are
// committed; `make test` checks they are current).
package ontime

//go:generate go tool templ generate

package web

// Licence is a data source's licence text.
type Licence struct{ Key, Text string }

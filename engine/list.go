package engine

import "strings"

// SplitList reads a comma-separated list as a user types it (methods, OD
// pairs, highway classes): items trimmed, empty ones dropped. The CLI's
// flags and the dashboard's forms read lists alike.
func SplitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

package main

import "runtime/debug"

// version and commit are set at build time by the Makefile
// (-ldflags "-X main.commit=…"); commit falls back to the VCS stamp.
var (
	version = "0.1.0-dev"
	commit  = ""
)

func buildCommit() string {
	if commit != "" {
		return commit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return "unknown"
}

package main

import (
	"flag"
	"os"
	"path/filepath"
)

const defaultStateHint = "$XDG_DATA_HOME/ontime or ~/.local/share/ontime"

// stateDir is where users' data lives: --state, else $ONTIME_STATE, else
// the user's data directory ($XDG_DATA_HOME/ontime, ~/.local/share/ontime).
// It is never the repository or the benchmark data directory.
func stateDir(flagValue string, getenv func(string) string) string {
	if flagValue != "" {
		return flagValue
	}
	if v := getenv("ONTIME_STATE"); v != "" {
		return v
	}
	if v := getenv("XDG_DATA_HOME"); v != "" {
		return filepath.Join(v, "ontime")
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" {
		return filepath.Join(os.TempDir(), "ontime-state")
	}
	return filepath.Join(home, ".local", "share", "ontime")
}

// parseInterspersed parses flags that may follow positional arguments
// ("networks add FILE --name x"), returning the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

package main

import (
	"flag"
	"os"
	"path/filepath"

	"github.com/ontime-routing/ontime/engine/lab"
)

const defaultStateHint = "$XDG_DATA_HOME/ontime or ~/.local/share/ontime"

// stateHelp is --state's help, the same on every verb.
const stateHelp = "state directory: your stored networks, models, jobs and results (default $ONTIME_STATE, else " + defaultStateHint + ")"

// registerState declares --state on a verb's flags (stateDir reads it).
func registerState(fs *flag.FlagSet) *string { return fs.String("state", "", stateHelp) }

// registerStateVar is registerState into a field of a flag group.
func registerStateVar(fs *flag.FlagSet, v *string) { fs.StringVar(v, "state", "", stateHelp) }

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

// newLab is the service a verb works through, on the state directory the
// verb was given (--state, else stateDir's rule): the one place the
// command line makes it; o gives the rest (data, cache, worker, …).
func newLab(getenv func(string) string, state string, o lab.Options) *lab.Lab {
	o.StateDir = stateDir(state, getenv)
	return lab.New(o)
}

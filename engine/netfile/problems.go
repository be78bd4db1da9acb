package netfile

import "github.com/ontime-routing/ontime/engine"

// MaxProblems bounds the problems one import reports (and the memory and
// time they take): past it, the file is plainly not what the reader
// expects. Every reader and check counts its problems in a problemList, so
// no kind of bad row escapes the bound.
const MaxProblems = 1000

// problemList gathers problems under the one bound: once it holds
// MaxProblems, add appends a line saying reading stopped, drops the
// rest, and reports full so that the caller stops.
type problemList struct {
	list engine.Problems
	full bool
}

// add appends es (those that fit) and reports whether the list is full;
// the closing line names the file and line of the last problem kept.
func (p *problemList) add(es ...*engine.Error) (full bool) {
	for _, e := range es {
		if p.full {
			break
		}
		p.list = append(p.list, e)
		if len(p.list) >= MaxProblems {
			p.list = append(p.list, engine.InputError(e.File, e.Line, "row", "stopped reading after %d problems", MaxProblems))
			p.full = true
		}
	}
	return p.full
}

// addErr adds err's problems (a list, or one error): see add.
func (p *problemList) addErr(err error) (full bool) {
	if ps, ok := engine.ProblemsOf(err); ok {
		return p.add(ps...)
	}
	return p.full
}

// err is the list as an error (nil when empty).
func (p *problemList) err() error { return p.list.Err() }

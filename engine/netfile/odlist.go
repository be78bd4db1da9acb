package netfile

import (
	"fmt"
	"strings"

	"github.com/ontime-routing/ontime/engine"
)

// MaxODPairs bounds a network's OD pairs (its benchmark pairs): every
// benchmark cell, the story and the network's page run or list each of
// them, so 20,000 copies of one pair made each anonymous /api/story view
// cost 15-21 CPU-s. The paper's networks have 5.
const MaxODPairs = 100

// parseODList reads "O-D" texts against net, as the ods field and a
// network file's ods list give them: at most MaxODPairs, each pair once,
// every problem naming field ods[i] of file, under the one bound of
// problems. A list over the bound is refused before anything is read.
// at[k] is the position in ods of picked[k].
func parseODList(net *engine.Network, ods []string, file string) (picked []engine.OD, at []int, problems engine.Problems) {
	if len(ods) > MaxODPairs {
		return nil, nil, engine.Problems{engine.InputError(file, 0, "ods", "%d OD pairs given: a network takes at most %d", len(ods), MaxODPairs)}
	}
	var probs problemList
	first := map[engine.OD]int{}
	for i, s := range ods {
		field := fmt.Sprintf("ods[%d]", i)
		od, err := net.ParseOD(strings.TrimSpace(s))
		if err != nil {
			probs.add(engine.InputError(file, 0, field, "%s", engine.ErrorMessage(err)))
			continue
		}
		if j, dup := first[od]; dup {
			probs.add(givenTwice(net, file, od, i, j))
			continue
		}
		first[od] = i
		picked, at = append(picked, od), append(at, i)
	}
	return picked, at, probs.list
}

// checkODList is what Check asks of a network's OD pairs however they were
// read: the bound and no pair twice.
func checkODList(net *engine.Network, file string) []*engine.Error {
	if len(net.ODs) > MaxODPairs {
		return []*engine.Error{engine.InputError(file, 0, "ods", "%d OD pairs: a network takes at most %d", len(net.ODs), MaxODPairs)}
	}
	var out []*engine.Error
	first := map[engine.OD]int{}
	for i, od := range net.ODs {
		if j, dup := first[od]; dup {
			out = append(out, givenTwice(net, file, od, i, j))
			continue
		}
		first[od] = i
	}
	return out
}

// givenTwice is the problem of pair od at ods[i], given first as ods[j].
func givenTwice(net *engine.Network, file string, od engine.OD, i, j int) *engine.Error {
	return engine.InputError(file, 0, fmt.Sprintf("ods[%d]", i), "OD %s is given twice (first as ods[%d])", net.ODString(od), j)
}

package train

import (
	"fmt"

	"github.com/ontime-routing/ontime/engine/policy"
)

// TeachersBase is the labeller base that follows the chosen imitation
// teacher of each pair and budget factor (the default).
const TeachersBase = "teachers"

// DefaultTeacherRolloutSamples are the labeller's draws a decision on the
// teachers' base (cgr ~180 µs, cdot ~490 µs a draw on Sioux Falls: about a
// minute of labelling a round of 4,000 episodes on two cores).
const DefaultTeacherRolloutSamples = 128

// policies builds the teachers on one environment (every covered pair at
// the range's ends, on the DOT grid the benchmark uses for the validation
// tasks) and, for a registry base, the labeller.
func (r *run) policies() (map[string]any, error) {
	c := r.cfg
	valEnv := &policy.Env{Net: c.Net, Model: c.Model, Tasks: r.tasks(c.ValidationODs, c.ValidationFactors), Seed: c.Seed}
	r.env = &policy.Env{Net: c.Net, Model: c.Model, Tasks: r.tasks(c.ODs, r.teacherFactors()), Seed: c.Seed,
		DOTDelta: valEnv.DefaultDOTDelta(), RolloutBase: c.RolloutBase, RolloutSamples: c.RolloutSamples}
	for _, name := range c.Teachers {
		m, _ := policy.Lookup(name)
		p, _, err := m.Build(r.env)
		if err != nil {
			return nil, fmt.Errorf("teacher %s: %w", name, err)
		}
		r.teachers = append(r.teachers, p)
	}
	if c.RolloutBase == TeachersBase {
		return nil, nil // built once the teachers are chosen
	}
	ro, err := policy.Lookup("rollout")
	if err != nil {
		return nil, err
	}
	p, s, err := ro.New(r.env)
	if err != nil {
		return nil, err
	}
	if rp, ok := p.(*policy.Rollout); ok {
		rp.Z = r.labelZ()
		s["switch"] = switchText(rp.Z)
	}
	r.labeller = p
	return s, nil
}

// teacherLabeller is rollout on the chosen teachers.
func (r *run) teacherLabeller(mix *teacherMix) map[string]any {
	m := r.cfg.RolloutSamples
	if m <= 0 {
		m = DefaultTeacherRolloutSamples
	}
	ro := policy.NewRollout(r.cfg.Net, r.cfg.Model, mix, m)
	ro.Z = r.labelZ()
	r.labeller = ro
	return map[string]any{"method": "rollout", "base": "the chosen teacher of the episode's pair and budget factor", "samples": m,
		"draws": "conditional Gaussian (Matheron), common to every candidate link", "switch": switchText(ro.Z)}
}

// labelZ is the labeller's evidence rule: rollout's own for a registry
// base (the rule chosen on validation pools, RolloutZFor), the strict one
// on the teachers' few draws, none with --label-any-gain.
func (r *run) labelZ() float64 {
	if r.cfg.LabelAnyGain {
		return 0
	}
	if z, ok := policy.RolloutZFor[r.cfg.RolloutBase]; ok {
		return z
	}
	return policy.RolloutZ
}

func switchText(z float64) string {
	if z == 0 {
		return "takes the link with the most wins on the draws (ties: the base's)"
	}
	return fmt.Sprintf("leaves the base's link only if McNemar's (b−c)/√(b+c) > %g on the draws", z)
}

package lab

import (
	"context"

	"github.com/ontime-routing/ontime/engine/policy"
)

// Lesson is one of the teaching lessons, in order; its Summary is a
// sentence with its own final punctuation.
type Lesson struct{ Slug, Title, Summary string }

// Lessons are the lessons a lecturer steps through, in order.
var Lessons = []Lesson{
	{"mean", "The mean is not the goal", "two routes about as fast on average; one budget; which arrives on time more often?"},
	{"budget", "The budget decides", "tight budgets favour the gamble, loose ones the steady route."},
	{"adapt", "Adapting on the way beats any fixed path", "a policy that decides at each node against the best route fixed before departure."},
	{"history", "History and correlation: the five-node example", "what was seen on the way says what is coming."},
	{"data", "Real travel times: skewed, and telling", "measured times lean right, and a slow start says the rest will be slow too."},
	{"learning", "How a policy learns from episodes", "GPG-HT's validation curve: imitation first, then improvement on its own episodes."},
}

// The adapt lesson shows the methods the registry casts in it (policy.Method
// Lessons["adapt"]): fixed routes (the fastest on average, the best fixed
// route) against adaptive policies (on the marginal laws, and on the joint
// law given what was seen).
const adaptLesson = "adapt"

// AdaptRates are the adapt lesson's figure at one budget factor.
type AdaptRates struct {
	Network string             `json:"network"`
	OD      string             `json:"od"`
	Factor  float64            `json:"factor"`
	Budget  float64            `json:"budget"`
	Rates   map[string]float64 `json:"rates"`
	Labels  map[string]string  `json:"labels"`
	Colors  map[string]string  `json:"colors"` // each method's colour on every page (the registry's)
	Roles   map[string]string  `json:"roles"`  // each method's role in the lesson: fixed or adaptive
	Size    int                `json:"realizations"`
}

// Adapt computes the adapt lesson's rates on the network's first OD pair.
func (n *Net) Adapt(ctx context.Context, factor float64) (*AdaptRates, error) {
	od := n.Net.ODs[0]
	let, err := n.Validate(od, factor)
	if err != nil {
		return nil, err
	}
	a := &AdaptRates{Network: n.Net.Name, OD: n.Net.ODString(od), Factor: factor, Budget: factor * let, Rates: map[string]float64{}, Labels: map[string]string{}, Colors: map[string]string{}, Size: RateSize,
		Roles: policy.LessonMethods(adaptLesson)}
	for _, m := range policy.LessonNames(adaptLesson) {
		r, _, err := n.OnTimeRate(ctx, m, od, factor)
		if err != nil {
			return nil, err
		}
		a.Rates[m] = r
		if meth, err := policy.Lookup(m); err == nil {
			a.Labels[m], a.Colors[m] = meth.Label, meth.Color
		}
	}
	return a, nil
}

// MethodWord introduces a method by its code and what it is, so a lesson
// says what a code means before it shows one.
type MethodWord struct {
	Code  string `json:"code"`
	Label string `json:"label"`
}

// MethodWords are the named methods' codes and labels from the registry,
// in the order given.
func MethodWords(names []string) []MethodWord {
	var out []MethodWord
	for _, name := range names {
		if m, err := policy.Lookup(name); err == nil {
			out = append(out, MethodWord{Code: m.Name, Label: m.Label})
		}
	}
	return out
}

// LessonWords are the methods a lesson shows, introduced in words.
func LessonWords(lesson string) []MethodWord { return MethodWords(policy.LessonNames(lesson)) }

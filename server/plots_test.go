package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// Issue 44: while imitation fits, a training's curve has only the
// teachers' level; the figure draws it (dashed, named in the legend) as its
// caption promises, instead of an empty frame.
func TestJobCurveDrawsTheTeachersLevelFirst(t *testing.T) {
	raw := []json.RawMessage{json.RawMessage(`{"kind":"teacher","name":"teachers","rates":[0.52,0.71],"factors":[1,1.05],"mean":0.615}`)}
	p, err := jobCurve(raw)
	if err != nil {
		t.Fatal(err)
	}
	b, err := drawPlot(p, figureSize[0], figureSize[1], "svg")
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	if strings.Count(svg, "stroke-dasharray") < 2 || !strings.Contains(svg, "the teachers&#39; level") && !strings.Contains(svg, "the teachers' level") {
		t.Errorf("the teachers' level is not drawn:\n%.2000s", svg)
	}
}

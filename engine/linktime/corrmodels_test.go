package linktime

import (
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
)

// Every model in the table builds on a small network that gives it what it
// needs, and the model it states is the one asked for.
func TestEveryCorrModelBuilds(t *testing.T) {
	for _, m := range CorrModels() {
		c := engine.Correlation{Model: m.Name, Seed: 3, Strength: 0.5, Length: 300, Factors: 4}
		net := grid(4, c)
		if m.Name == Explicit {
			net.Correlation.Covariance = make([][]float64, len(net.Links))
			for i := range net.Links {
				net.Correlation.Covariance[i] = make([]float64, len(net.Links))
				net.Correlation.Covariance[i][i] = net.Links[i].Var
			}
		}
		if m.Name == FittedFactor {
			net.Correlation.Loadings = make([][]float64, len(net.Links))
			for i := range net.Links {
				net.Correlation.Loadings[i] = []float64{0.6, float64(i%3) / 4}
			}
		}
		g, err := New(net)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		if g.Spec.Model != m.Name {
			t.Errorf("%s: built %s", m.Name, g.Spec.Model)
		}
		if m.Dense && g.F == nil {
			t.Errorf("%s is dense but has no factor", m.Name)
		}
	}
	if _, err := CorrModelByName("wavelet"); err == nil || !strings.Contains(err.Error(), "spatial-factor") {
		t.Errorf("unknown model: %v", err)
	}
}

// Flags and forms name their fields differently; one parser reads both and
// every message names the field the way its caller spells it.
func TestParseCorrChoice(t *testing.T) {
	form := CorrFieldNames{"corr", "corr_seed", "strength", "length", "factors"}
	parse := func(names CorrFieldNames, kv map[CorrField]string) (CorrChoice, error) {
		return ParseCorrChoice(func(f CorrField) string { return kv[f] }, names)
	}
	for _, tc := range []struct {
		kv      map[CorrField]string
		want    engine.Correlation // as an import states it
		wantErr string             // with the form's names
	}{
		{kv: nil, want: engine.Correlation{}},
		{kv: map[CorrField]string{CorrFieldModel: "default"}, want: engine.Correlation{}},
		{kv: map[CorrField]string{CorrFieldModel: Independent}, want: engine.Correlation{Model: Independent}},
		{kv: map[CorrField]string{CorrFieldModel: RandomPSD}, want: engine.Correlation{Model: RandomPSD, Seed: DefaultCorrSeed}},
		{kv: map[CorrField]string{CorrFieldModel: RandomPSD, CorrFieldSeed: "9"}, want: engine.Correlation{Model: RandomPSD, Seed: 9}},
		{kv: map[CorrField]string{CorrFieldModel: Spatial, CorrFieldLength: "250"}, want: engine.Correlation{Model: Spatial, Strength: DefaultStrength, Length: 250}},
		{kv: map[CorrField]string{CorrFieldModel: SpatialFactor, CorrFieldStrength: "0.3"}, want: engine.Correlation{Model: SpatialFactor, Strength: 0.3, Factors: DefaultFactors}},
		{kv: map[CorrField]string{CorrFieldModel: SpatialFactor, CorrFieldFactors: "16"}, want: engine.Correlation{Model: SpatialFactor, Strength: DefaultStrength, Factors: 16}},
		{kv: map[CorrField]string{CorrFieldModel: Explicit}, wantErr: `corr "explicit": use independent, random-psd, spatial or spatial-factor`},
		{kv: map[CorrField]string{CorrFieldModel: "weird"}, wantErr: `corr "weird"`},
		{kv: map[CorrField]string{CorrFieldModel: Spatial, CorrFieldStrength: "1.5"}, wantErr: `strength="1.5": give a number from 0 to 1`},
		{kv: map[CorrField]string{CorrFieldModel: Spatial, CorrFieldLength: "-1"}, wantErr: `length="-1"`},
		{kv: map[CorrField]string{CorrFieldModel: RandomPSD, CorrFieldSeed: "1.5"}, wantErr: `corr_seed="1.5": give a whole number`},
		{kv: map[CorrField]string{CorrFieldModel: SpatialFactor, CorrFieldFactors: "5000"}, wantErr: `factors="5000"`},
		{kv: map[CorrField]string{CorrFieldModel: SpatialFactor, CorrFieldFactors: "NaN"}, wantErr: `factors="NaN"`},
	} {
		got, err := parse(form, tc.kv)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: err %v, want %q", tc.kv, err, tc.wantErr)
			}
			flagErr := ""
			if _, err := parse(CorrFlagNames, tc.kv); err != nil {
				flagErr = err.Error()
			}
			if flagErr == "" || strings.Contains(flagErr, "corr_seed") {
				t.Errorf("%v: flags' error %q should name the flag", tc.kv, flagErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.kv, err)
			continue
		}
		if c := got.Correlation(); c.Model != tc.want.Model || c.Seed != tc.want.Seed || c.Strength != tc.want.Strength || c.Length != tc.want.Length || c.Factors != tc.want.Factors {
			t.Errorf("%v: %+v, want %+v", tc.kv, c, tc.want)
		}
	}
}

// An override keeps what the network had where the choice is silent.
func TestCorrChoiceApply(t *testing.T) {
	seven := uint64(7)
	for _, tc := range []struct {
		name    string
		net     engine.Correlation
		choice  CorrChoice
		want    engine.Correlation
		wantErr string
	}{
		{"nothing asked", engine.Correlation{Model: RandomPSD, Seed: 4}, CorrChoice{}, engine.Correlation{Model: RandomPSD, Seed: 4}, ""},
		{"a seed reseeds", engine.Correlation{Model: RandomPSD, Seed: 4}, CorrChoice{Seed: &seven}, engine.Correlation{Model: RandomPSD, Seed: 7}, ""},
		{"a seed needs random-psd", engine.Correlation{Model: Independent}, CorrChoice{Seed: &seven}, engine.Correlation{}, "applies to random-psd"},
		{"random-psd keeps the seed", engine.Correlation{Model: RandomPSD, Seed: 4}, CorrChoice{Model: RandomPSD}, engine.Correlation{Model: RandomPSD, Seed: 4}, ""},
		{"random-psd from another model", engine.Correlation{Model: Independent}, CorrChoice{Model: RandomPSD}, engine.Correlation{Model: RandomPSD}, ""},
		{"spatial fills the length", engine.Correlation{Model: Independent}, CorrChoice{Model: Spatial, Strength: 0.4}, engine.Correlation{Model: Spatial, Strength: 0.4, Length: -1}, ""},
		{"factors default", engine.Correlation{Model: Independent}, CorrChoice{Model: SpatialFactor, Strength: 0.4, Length: 10}, engine.Correlation{Model: SpatialFactor, Strength: 0.4, Length: 10, Factors: DefaultFactors}, ""},
		{"explicit is not a choice", engine.Correlation{Model: Independent}, CorrChoice{Model: Explicit}, engine.Correlation{}, "use independent"},
	} {
		net := grid(3, tc.net)
		err := tc.choice.Apply(net)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := tc.want
		if want.Length == -1 {
			want.Length = DefaultSpatialLength(net)
		}
		c := net.Correlation
		if c.Model != want.Model || c.Seed != want.Seed || c.Strength != want.Strength || c.Length != want.Length || c.Factors != want.Factors {
			t.Errorf("%s: %+v, want %+v", tc.name, c, want)
		}
	}
}

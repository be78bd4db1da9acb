package engine

import (
	"slices"
	"testing"
)

func TestSplitList(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" , ,", nil},
		{"dot", []string{"dot"}},
		{" let, dot ,,cdot ", []string{"let", "dot", "cdot"}},
	} {
		if got := SplitList(c.in); !slices.Equal(got, c.want) {
			t.Errorf("SplitList(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

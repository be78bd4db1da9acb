package csvsafe

import (
	"bytes"
	"encoding/csv"
	"testing"
)

// Formulas are written as text, numbers as numbers, other cells as they
// are; what is written reads back as the neutralised cells.
func TestCellsThatLookLikeFormulasAreText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"}, {"+SUM(1+1)", "'+SUM(1+1)"}, {"@SUM(1)", "'@SUM(1)"},
		{"-2+3", "'-2+3"}, {"\tx", "'\tx"}, {"\rx", "'\rx"},
		{"-0.5", "-0.5"}, {"+3", "+3"}, {"-1e5", "-1e5"}, {"12", "12"}, {"a=b", "a=b"}, {"", ""}, {"1→2", "1→2"},
	} {
		if got := Cell(tc.in); got != tc.want {
			t.Errorf("Cell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var b bytes.Buffer
	w := NewWriter(&b)
	if err := w.WriteAll([][]string{{"from", "to"}, {"=1+1", "-7"}}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || rows[1][0] != "'=1+1" || rows[1][1] != "-7" {
		t.Errorf("read back %q (%v)", rows, err)
	}
}

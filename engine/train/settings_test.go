package train

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// Every setting's default lies within its bounds, so the form's default
// value is one it accepts, and a value just outside is refused naming it.
func TestSettingsBoundTheirDefaults(t *testing.T) {
	if err := DefaultRequest().Check(); err != nil {
		t.Fatal(err)
	}
	for _, st := range Settings {
		if d := st.Default(); d < st.Min || d > st.Max {
			t.Errorf("%s: default %d outside [%d, %d]", st.Flag, d, st.Min, st.Max)
		}
		for _, v := range []int{st.Min - 1, st.Max + 1} {
			q := DefaultRequest()
			*st.Of(&q) = v
			if err := q.Check(); err == nil || !strings.HasPrefix(err.Error(), st.Flag+":") {
				t.Errorf("%s = %d: %v", st.Flag, v, err)
			}
		}
	}
}

// The Python trainer states no training setting of its own: every value Go
// passes (sizes, epochs, steps, rates) is a required argument there, so the
// defaults live in Go alone.
func TestTrainerHasNoDefaultsOfItsOwn(t *testing.T) {
	src, err := os.ReadFile("../../models/train/train.py")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`add_argument\("--(epochs|lr|d|enc|dec|heads|entropy|steps|iterations)"[^)]*\)`)
	args := re.FindAllString(string(src), -1)
	if len(args) < 9 {
		t.Fatalf("found %d of the trainer's setting arguments: %q", len(args), args)
	}
	for _, a := range args {
		if strings.Contains(a, "default=") || !strings.Contains(a, "required=True") {
			t.Errorf("train.py: %s should be required, its value passed from Go", a)
		}
	}
}

package lab

import (
	"context"
	"testing"
)

// The data lesson's days are the route's: quarters ordered, the whole
// route right-skewed (mean above median, positive skew) under log-normal
// roads, and the first links' time correlated with the rest's (the
// spatial correlation of Ringtown's roads).
func TestDataLesson(t *testing.T) {
	l := New(Options{StateDir: t.TempDir()})
	defer l.Close()
	d, err := l.DataLesson(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(d.First) != dataLessonDays || len(d.Rest) != dataLessonDays {
		t.Fatalf("%d and %d days", len(d.First), len(d.Rest))
	}
	if !(d.Quarters[0] < d.Quarters[1] && d.Quarters[1] < d.Quarters[2]) {
		t.Errorf("quarters %v", d.Quarters)
	}
	if !(d.Mean > d.Median && d.Skew > 0) {
		t.Errorf("not right-skewed: mean %v median %v skew %v", d.Mean, d.Median, d.Skew)
	}
	if !(d.Correlation > 0.2) {
		t.Errorf("first and rest correlate %v", d.Correlation)
	}
	area := 0.0
	for _, b := range d.Bins {
		area += (b.Hi - b.Lo) * b.Density
	}
	if area < 0.999 || area > 1.001 {
		t.Errorf("the histogram's area is %v", area)
	}
}

package netfile

import (
	"math"
	"testing"
	"time"
)

// A GPX point's time is a real timestamp however long the drive: minutes
// after 2000-01-01 read back as the same instant, to the millisecond. A
// drive of more than a month wrote the day as 1 + days ("2000-01-279T…"),
// which no reader takes (issue 71: 12).
func TestGPXTimesAreTimestamps(t *testing.T) {
	for _, minutes := range []float64{0, 0.0004, 59.99999, 1439.9996, 44640, 40 * 1440.5, 401007.15, 1e6} {
		s := gpxTime(minutes)
		got, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Errorf("%v min: %q does not parse: %v", minutes, s, err)
			continue
		}
		if want := gpxEpoch.Add(time.Duration(math.Round(minutes*60000)) * time.Millisecond); !got.Equal(want) {
			t.Errorf("%v min: %q reads back as %v, want %v", minutes, s, got, want)
		}
	}
}

package netfile_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/netfile"
)

// A network's law over the day is part of its file: written and read back,
// the clock and the fingerprint are the same; a file without a clock reads
// as before (static).
func TestClockRoundTrip(t *testing.T) {
	net, err := builtin.Load(builtin.Rushtown, "")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := netfile.WriteJSON(&buf, net); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"clock"`) {
		t.Fatal("the written file has no clock section")
	}
	back, err := netfile.ReadJSON(bytes.NewReader(buf.Bytes()), "rushtown.json")
	if err != nil {
		t.Fatal(err)
	}
	if !back.Timed() || !reflect.DeepEqual(back.Clock, net.Clock) {
		t.Fatalf("clock read back %+v, want %+v", back.Clock, net.Clock)
	}
	if engine.Fingerprint(back, back.Correlation) != engine.Fingerprint(net, net.Correlation) {
		t.Error("the fingerprint changed on a round trip")
	}
	static, _ := builtin.Load(builtin.Ringtown, "")
	buf.Reset()
	_ = netfile.WriteJSON(&buf, static)
	if strings.Contains(buf.String(), `"clock"`) {
		t.Error("a static network's file has a clock section")
	}
}

// A bad clock section is refused naming the file, the line and the field.
func TestBadClockRefused(t *testing.T) {
	net, _ := builtin.Load(builtin.Rushtown, "")
	for _, tc := range []struct {
		name string
		edit func(c *engine.Clock)
		want string
	}{
		{"step", func(c *engine.Clock) { c.Step = 7 }, "does not divide a day"},
		{"knots", func(c *engine.Clock) { c.Profiles[0].Mean = c.Profiles[0].Mean[:3] }, "knots"},
		{"factor", func(c *engine.Clock) { c.Profiles[1].Spread[4] = -1 }, "spread factor at least 0"},
		{"links", func(c *engine.Clock) { c.Links = []int{0} }, "link profiles"},
		{"depart", func(c *engine.Clock) { c.Depart = 1440 }, "not a time of day"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := *net.Clock
			c.Profiles = []engine.DayProfile{}
			for _, p := range net.Clock.Profiles {
				c.Profiles = append(c.Profiles, engine.DayProfile{Name: p.Name, Mean: append([]float64(nil), p.Mean...), Spread: append([]float64(nil), p.Spread...)})
			}
			tc.edit(&c)
			bad := *net
			bad.Clock = &c
			var buf bytes.Buffer
			if err := netfile.WriteJSON(&buf, &bad); err != nil {
				t.Fatal(err)
			}
			_, err := netfile.ReadJSON(bytes.NewReader(buf.Bytes()), "day.json")
			var e *engine.Error
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			if !errors.As(err, &e) || e.File != "day.json" || e.Field != "clock" || e.Line == 0 {
				t.Errorf("error %+v: want the file, the field clock and its line", e)
			}
		})
	}
}

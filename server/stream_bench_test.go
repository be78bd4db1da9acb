package server

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/ontime-routing/ontime/assets"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/testenv"
)

// BenchmarkCompareStream streams a comparison of every non-learned method
// (GPG-HT where its model is there) through a real websocket without the
// animation delay, after a warm-up: ns/op is the request-to-done time,
// first_step_ms the time to the first step, frames/s the messages a
// browser receives per second.
func BenchmarkCompareStream(b *testing.B) {
	dir := testenv.DataDir(b)
	for _, net := range []string{"sfn", "anaheim"} {
		b.Run(net, func(b *testing.B) {
			l := lab.New(lab.Options{DataDir: dir})
			n, err := l.Open(net)
			if err != nil {
				b.Fatal(err)
			}
			ts := httptest.NewServer(NewServer(Deps{Lab: l, Assets: assets.FS}))
			defer ts.Close()
			od := n.Net.ODs[0]
			q := url.Values{"net": {net}, "o": {n.Net.Nodes[od.Origin].ID}, "d": {n.Net.Nodes[od.Destination].ID}, "f": {"1"},
				"m": {"let,dot,cdot,cgr,fma,mlr,bestpath,gpght,clairvoyant"}, "speed": {"0"}}
			stream := func(r int) (frames int, first time.Duration) {
				q.Set("r", string(rune('0'+r%10)))
				t0 := time.Now()
				c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/ws/compare?"+q.Encode(), nil)
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				for {
					var msg struct{ Type string }
					if c.ReadJSON(&msg) != nil {
						return
					}
					frames++
					if msg.Type == "step" && first == 0 {
						first = time.Since(t0)
					}
				}
			}
			stream(0) // warm: tables solved, models opened
			frames, firsts := 0, time.Duration(0)
			t0 := time.Now()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				f, first := stream(i + 1)
				frames += f
				firsts += first
			}
			b.ReportMetric(float64(firsts.Milliseconds())/float64(b.N), "first_step_ms")
			b.ReportMetric(float64(frames)/time.Since(t0).Seconds(), "frames/s")
		})
	}
}

package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ontime-routing/ontime/assets"
	"github.com/ontime-routing/ontime/engine/lab"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// With the log at debug level (serve -v) every request is a line: its
// method, path, status and bytes; at info level, none is.
func TestRequestLog(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelDebug, slog.LevelInfo} {
		var buf lockedBuffer
		l := lab.New(lab.Options{StateDir: t.TempDir()})
		ts := httptest.NewServer(NewServer(Deps{Lab: l, Version: "test", Assets: assets.FS,
			Log: slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: level}))}))
		get(t, ts, "/healthz")
		get(t, ts, "/api/story?o=1&d=999")
		get(t, ts, "/?token=s3cret-class-token&x=1&Access_Token=other")
		ts.Close()
		l.Close()
		var lines []map[string]any
		for _, s := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(s), &m) == nil && m["msg"] == "request" {
				lines = append(lines, m)
			}
		}
		if level == slog.LevelInfo {
			if len(lines) != 0 {
				t.Errorf("info level logged %d requests", len(lines))
			}
			continue
		}
		if strings.Contains(buf.String(), "s3cret-class-token") || strings.Contains(buf.String(), "other") {
			t.Errorf("a token reached the log: %s", buf.String())
		}
		if len(lines) != 3 || lines[2]["query"] != "token=REDACTED&x=1&Access_Token=REDACTED" {
			t.Errorf("the token's request is logged as %v", lines)
			continue
		}
		if lines[0]["path"] != "/healthz" || lines[0]["status"] != float64(200) || lines[0]["bytes"] != float64(3) ||
			lines[1]["status"] != float64(400) || lines[1]["query"] != "o=1&d=999" || lines[1]["id"] == "" {
			t.Errorf("request lines: %v", lines)
		}
	}
}

package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
)

func TestDiskErrorIsStorage(t *testing.T) {
	for _, err := range []error{syscall.ENOSPC, &os.PathError{Op: "write", Path: "x", Err: syscall.EDQUOT}, fmt.Errorf("w: %w", syscall.EFBIG)} {
		if ErrorCode(DiskError(err)) != ESTORAGE {
			t.Errorf("%v: not a storage error", err)
		}
	}
	if ErrorCode(DiskError(os.ErrNotExist)) == ESTORAGE {
		t.Error("a missing file is no full disk")
	}
}

// Every value a %q verb quotes is an excerpt, whatever verbs come before
// it; other verbs' arguments are untouched; the message has a bound.
func TestErrorfQuotesExcerpts(t *testing.T) {
	long := strings.Repeat("x", 5000)
	for _, tc := range []struct {
		format string
		args   []any
		want   string
	}{
		{"%q", []any{long}, `"` + strings.Repeat("x", 80) + `…"`},
		{"%d%% of %s is %q", []any{5, "abc", long}, `5% of abc is "` + strings.Repeat("x", 80) + `…"`},
		{"%6.2f %q %v", []any{1.5, "short", 7}, `  1.50 "short" 7`},
		{"%s", []any{"kept"}, "kept"},
		{"%q", []any{[]string{"a", long}}, `["a" "` + strings.Repeat("x", 80) + `…"]`},
	} {
		if got := Errorf(EINVALID, tc.format, tc.args...).Message; got != tc.want {
			t.Errorf("%s: %.200q, want %.200q", tc.format, got, tc.want)
		}
	}
	if got := Errorf(EINVALID, "%s", long).Message; len(got) > MaxMessage || !strings.HasSuffix(got, "…") {
		t.Errorf("an unquoted long message is %d bytes", len(got))
	}
	if got := Errorf(EINTERNAL, "%s", long).Message; got != long {
		t.Error("an internal error (a stack for the log) was cut")
	}
	if got := InputError("f.csv", 2, "from", "%q is not a node", "\x01\x02"+long).Message; len(got) > 400 {
		t.Errorf("control characters quoted whole: %d bytes", len(got))
	}
}

// An error as JSON takes the one lower-case error shape, and the
// capitalised keys of reports stored before it still read back.
func TestErrorJSONShape(t *testing.T) {
	b, _ := json.Marshal(InputError("a.csv", 3, "time", "bad"))
	if string(b) != `{"code":"invalid","error":"bad","file":"a.csv","line":3,"field":"time"}` {
		t.Errorf("%s", b)
	}
	var e Error
	if err := json.Unmarshal([]byte(`{"Code":"invalid","Message":"old","File":"b.csv","Line":4,"Field":"to"}`), &e); err != nil || e != (Error{Code: EINVALID, Message: "old", File: "b.csv", Line: 4, Field: "to"}) {
		t.Errorf("a stored report's problem: %+v %v", e, err)
	}
	var back Error
	if err := json.Unmarshal(b, &back); err != nil || back.Message != "bad" || back.Line != 3 {
		t.Errorf("round trip: %+v %v", back, err)
	}
}

// ProblemsOf is the one way an error becomes the problems a person sees.
func TestProblemsOf(t *testing.T) {
	one := InputError("a.csv", 2, "time", "bad")
	list := Problems{one, InputError("a.csv", 3, "to", "bad too")}
	for _, tc := range []struct {
		err  error
		n    int
		isOK bool
	}{{one, 1, true}, {list, 2, true}, {fmt.Errorf("wrapped: %w", one), 1, true}, {fmt.Errorf("a fault"), 0, false}, {nil, 0, false}} {
		if ps, ok := ProblemsOf(tc.err); ok != tc.isOK || len(ps) != tc.n {
			t.Errorf("%v: %d problems, ok %v", tc.err, len(ps), ok)
		}
	}
}

package procstatus

import (
	"runtime"
	"testing"
)

// The fields the project reads are there and in order: data ≥ resident
// memory's share of the heap, the peak ≥ the resident now; a name that is
// not a field is not read as one.
func TestBytes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/self/status is Linux's")
	}
	rss, ok1 := Bytes("VmRSS")
	hwm, ok2 := Bytes("VmHWM")
	data, ok3 := Bytes("VmData")
	if !ok1 || !ok2 || !ok3 || rss <= 0 || hwm < rss || data <= 0 {
		t.Errorf("VmRSS %d (%v), VmHWM %d (%v), VmData %d (%v)", rss, ok1, hwm, ok2, data, ok3)
	}
	if n, ok := Bytes("Vm"); ok {
		t.Errorf("a prefix of a field read as one: %d", n)
	}
	if n, ok := Bytes("Threads"); ok { // a count, not kB
		t.Errorf("a field without kB read as bytes: %d", n)
	}
}

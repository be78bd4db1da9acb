package testenv

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/internal/procstatus"
)

// Zombie reports whether process pid has died and nobody has reaped it:
// its state is Z and its other threads are gone (until then the kernel
// may still hold its files, and their locks). A pid no longer listed
// counts too: it was reaped already.
func Zombie(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	if !strings.Contains(string(stat), ") Z ") {
		return false
	}
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	return err != nil || len(tasks) <= 1
}

// RSS is this process's resident memory in bytes (/proc/self/status); the
// test skips without /proc.
func RSS(tb testing.TB) int64 {
	tb.Helper()
	n, ok := procstatus.Bytes("VmRSS")
	if !ok {
		tb.Skip("needs /proc/self/status's VmRSS to measure memory")
	}
	return n
}

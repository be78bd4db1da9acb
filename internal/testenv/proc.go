package testenv

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
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
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Skip("needs /proc to measure memory")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	tb.Skip("no VmRSS in /proc/self/status")
	return 0
}

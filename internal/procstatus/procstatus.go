// Package procstatus reads this process's memory figures from Linux's
// /proc/self/status: the one place its lines ("VmRSS:	  1234 kB") are
// parsed, for the worker's limit, the benchmarks' peaks and the tests'
// resident memory.
package procstatus

import (
	"os"
	"strconv"
	"strings"
)

// Bytes is field's value (VmRSS, VmHWM, VmData: given in kB) in bytes; ok
// is false where /proc or the field is missing.
func Bytes(field string) (n int64, ok bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == field+":" && f[2] == "kB" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

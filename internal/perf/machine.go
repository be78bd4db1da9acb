package perf

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/ontime-routing/ontime/engine/ort"
)

// machine describes where the figures were measured.
func machine(_ context.Context, c *Config, w io.Writer) error {
	cpu := firstField("/proc/cpuinfo", "model name")
	mem := firstField("/proc/meminfo", "MemTotal") // "24682416 kB"
	var kb float64
	if _, err := fmt.Sscan(mem, &kb); err == nil {
		mem = fmt.Sprintf("%.1f GiB", kb/(1<<20))
	}
	osName := strings.Trim(firstField("/etc/os-release", "PRETTY_NAME"), `"`)
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	load, _ := os.ReadFile("/proc/loadavg")
	lib := c.ORTLib
	if lib == "" {
		if p, err := ort.FindLibrary(); err == nil {
			lib = p
		} else {
			lib = "not found: GPG-HT figures are missing"
		}
	}
	fmt.Fprintf(w, "| | |\n|---|---|\n")
	fmt.Fprintf(w, "| CPU | %s |\n", orUnknown(cpu))
	fmt.Fprintf(w, "| cores (GOMAXPROCS) | %d |\n", runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "| memory | %s |\n", orUnknown(mem))
	fmt.Fprintf(w, "| system | %s, Linux %s |\n", orUnknown(osName), strings.TrimSpace(string(kernel)))
	fmt.Fprintf(w, "| GPU | none used (ONNX policies on the CPU) |\n")
	fmt.Fprintf(w, "| Go | %s %s/%s |\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(w, "| ontime | %s (%s) |\n", c.Version, short(c.Commit))
	fmt.Fprintf(w, "| ONNX Runtime | %s |\n", lib)
	fmt.Fprintf(w, "| load average at start (1, 5, 15 min) | %s |\n\n", strings.Join(strings.Fields(string(load))[:3], ", "))
	return nil
}

// firstField returns the value of the first "key: value" or "key=value"
// line of a file.
func firstField(path, key string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			k, v, ok = strings.Cut(line, "=")
		}
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

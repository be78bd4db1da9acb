package perf

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
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
	fmt.Fprintf(w, "| CPU family, model (host) | %s |\n", host())
	fmt.Fprintf(w, "| widest vectors | %s |\n", vectors())
	fmt.Fprintf(w, "| cores (GOMAXPROCS) | %d |\n", runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "| memory | %s |\n", orUnknown(mem))
	fmt.Fprintf(w, "| system | %s, Linux %s |\n", orUnknown(osName), strings.TrimSpace(string(kernel)))
	fmt.Fprintf(w, "| GPU | none used (ONNX policies on the CPU) |\n")
	fmt.Fprintf(w, "| Go | %s %s/%s |\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(w, "| ontime | %s (%s) |\n", c.Version, short(c.Commit))
	fmt.Fprintf(w, "| ONNX Runtime | %s |\n", lib)
	fmt.Fprintf(w, "| load average at start (1, 5, 15 min) | %s |\n\n", orUnknown(loadAverages()))
	return nil
}

// host names the processor the way /proc/cpuinfo tells hosts apart behind
// one model name ("AMD EPYC" is every generation): family and model, the
// same figures every section's measured line carries. A session's machine
// is not always the same host, and one host's seconds are not another's
// (Anaheim's full benchmark, one commit: 149 s on one, 117 s on another).
func host() string {
	family, model := firstField("/proc/cpuinfo", "cpu family"), firstField("/proc/cpuinfo", "model")
	if family == "" && model == "" {
		return "unknown"
	}
	return fmt.Sprintf("family %s, model %s", orUnknown(family), orUnknown(model))
}

// vectors is the widest vector extension the processor reports (what ONNX
// Runtime's and the BLAS's kernels pick at run time).
func vectors() string {
	flags := strings.Fields(firstField("/proc/cpuinfo", "flags"))
	for _, f := range []string{"avx512f", "avx2", "avx", "sse4_2", "asimd"} {
		if slices.Contains(flags, f) {
			return f
		}
	}
	return "unknown"
}

// loadAverages is /proc/loadavg's three load averages, "1.02, 0.87, 0.55"
// ("" where it cannot be read).
func loadAverages() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], ", ")
	}
	return ""
}

// loadAverage is the last minute's load average, for a section's line.
func loadAverage() string {
	one, _, _ := strings.Cut(loadAverages(), ",")
	return orUnknown(one)
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

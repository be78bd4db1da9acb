package worker

import (
	"os"
	"runtime"
	"testing"
)

// A child's crash reads as running out of memory only when the words say
// so or the fault is the Go runtime's own: a panic in our code, or a fault
// in a C library's code (an uploaded model's), stays an error of its own.
func TestOutOfMemoryWords(t *testing.T) {
	for _, c := range []struct {
		name, stderr string
		oom, fault   bool
	}{
		{"heap", "runtime: out of memory: cannot allocate 25165824-byte block (20414464 in use)\nfatal error: out of memory\n", true, false},
		{"metadata", "fatal error: runtime: cannot allocate memory\n\nruntime stack:\nruntime.throw(...)\n", true, false},
		{"thread", "runtime/cgo: pthread_create failed: Resource temporarily unavailable\nSIGABRT: abort\n", true, false},
		{"onnx", "std::bad_alloc", true, false},
		// Go 1.26's collector under a 16 MB limit (the start of a real trace).
		{"collector", "SIGSEGV: segmentation violation\nPC=0x43a2bd m=8 sigcode=1 addr=0x0\n\n" +
			"goroutine 0 gp=0x12d66f804960 m=8 mp=0x12d66f801008 [idle]:\n" +
			"runtime.(*spanQueue).tryDrain(0x7fb300000400?, 0x442b05?, 0x34c1d68?)\n" +
			"\t/usr/local/go/src/runtime/mgcmark_greenteagc.go:520 +0x5d\n", false, true},
		{"our nil", "panic: runtime error: invalid memory address or nil pointer dereference\n" +
			"[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4b1d2e]\n\n" +
			"goroutine 1 [running]:\ngithub.com/ontime-routing/ontime/engine/netfile.Import(...)\n", false, false},
		{"C code", "SIGSEGV: segmentation violation\nPC=0x7f0000001234 m=3 sigcode=1 addr=0x8\n" +
			"signal arrived during cgo execution\n\ngoroutine 7 gp=0xc000102000 m=3 [syscall]:\n" +
			"runtime.cgocall(0x4b1d2e, 0xc00005e6f8)\n", false, false},
		{"our fault", "SIGSEGV: segmentation violation\nPC=0x4b1d2e m=0 sigcode=1\n\n" +
			"goroutine 1 [running]:\ngithub.com/ontime-routing/ontime/engine/netfile.Import(...)\n", false, false},
		{"plain error", "no worker kind \"x\"\n", false, false},
	} {
		if got := outOfMemory(c.stderr); got != c.oom {
			t.Errorf("%s: outOfMemory = %v, want %v", c.name, got, c.oom)
		}
		if got := runtimeFault(c.stderr); got != c.fault {
			t.Errorf("%s: runtimeFault = %v, want %v", c.name, got, c.fault)
		}
	}
}

// startThreads leaves at least n threads in the process, idle, so that
// the stacks the work will run on are counted before the limit is set.
func TestStartThreadsLeavesThemRunning(t *testing.T) {
	threads := func() int {
		ents, err := os.ReadDir("/proc/self/task")
		if err != nil {
			t.Skipf("no /proc/self/task: %v", err)
		}
		return len(ents)
	}
	n := runtime.GOMAXPROCS(0) + spareThreads + 8
	startThreads(n)
	if got := threads(); got < n {
		t.Errorf("%d threads after starting %d", got, n)
	}
}

// dataSize follows what RLIMIT_DATA counts: a slice written to adds its
// size.
func TestDataSizeCountsWrittenMemory(t *testing.T) {
	before := dataSize()
	if before == 0 {
		t.Skip("no VmData in /proc/self/status")
	}
	const size = 64 << 20
	b := make([]byte, size)
	for i := range b {
		b[i] = 1
	}
	after := dataSize()
	runtime.KeepAlive(b)
	if after < before+size*9/10 {
		t.Errorf("data %d MB → %d MB after writing %d MB", before>>20, after>>20, size>>20)
	}
}

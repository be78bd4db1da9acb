package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// profileFlags are the --cpuprofile and --memprofile flags of the commands
// that run long (bench, plan, live): where a run's time and memory go, for
// go tool pprof.
type profileFlags struct{ cpu, mem string }

func (p *profileFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof reads it): where the run's time goes")
	fs.StringVar(&p.mem, "memprofile", "", "write a heap profile to this file when the run ends (go tool pprof reads it; -sample_index=alloc_space: where the run's memory was taken)")
}

// start begins the CPU profile, if asked; stop ends it and writes the heap
// profile, if asked. Both files are created before the run, so that a path
// that cannot be written fails at once, not after minutes.
func (p *profileFlags) start() (stop func() error, err error) {
	var cpu, mem *os.File
	closeAll := func() {
		for _, f := range []*os.File{cpu, mem} {
			if f != nil {
				f.Close()
			}
		}
	}
	if p.mem != "" {
		if mem, err = os.Create(p.mem); err != nil {
			return nil, fmt.Errorf("--memprofile: %w", err)
		}
	}
	if p.cpu != "" {
		if cpu, err = os.Create(p.cpu); err != nil {
			closeAll()
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			closeAll()
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
	}
	return func() error {
		var errs []error
		if cpu != nil {
			pprof.StopCPUProfile()
			errs = append(errs, cpu.Close())
		}
		if mem != nil {
			runtime.GC() // the heap's in-use figures as of now
			if err := pprof.Lookup("heap").WriteTo(mem, 0); err != nil {
				errs = append(errs, fmt.Errorf("--memprofile: %w", err))
			}
			errs = append(errs, mem.Close())
		}
		return errors.Join(errs...)
	}, nil
}

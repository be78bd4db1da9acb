package main

import (
	"flag"
	"os"
	"time"

	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/worker"
)

// workerCommand is this binary as a worker process (`ontime worker KIND`)
// limited to memoryMB and limit, or nil (work in this process) when
// memoryMB is 0 or the binary cannot be found.
func workerCommand(memoryMB int, limit time.Duration) *worker.Command {
	exe, err := os.Executable()
	if err != nil || memoryMB <= 0 {
		return nil
	}
	return &worker.Command{Path: exe, Args: []string{"worker"}, Memory: int64(memoryMB) << 20, Time: limit}
}

// fitLimits are the command line's bounds on a fit of observed times: the
// dashboard's on an upload (--upload-memory, --upload-time), so that a
// file that would take the machine's memory or hours ends its child
// process with the reason, and Ctrl-C ends the child at once.
type fitLimits struct {
	memoryMB *int
	time     *time.Duration
}

func fitLimitFlags(fs *flag.FlagSet) fitLimits {
	return fitLimits{
		memoryMB: fs.Int("fit-memory", lab.DefaultWorkerMemoryMB, "memory limit in MB of the child process that reads and fits the observed times (0: fit in this process, unbounded)"),
		time:     fs.Duration("fit-time", lab.DefaultWorkerTime, "time limit for reading and fitting the observed times"),
	}
}

func (f fitLimits) command() *worker.Command {
	c := workerCommand(*f.memoryMB, *f.time)
	if c != nil {
		c.For = "a fit (--fit-memory; --fit-time bounds its time)"
	}
	return c
}

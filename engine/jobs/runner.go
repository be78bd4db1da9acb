package jobs

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Jobs may run in two processes on one state directory: the dashboard's
// and a command line's (`ontime train` or `ontime bench` on a stored
// network). Each record names its runner, so that a dashboard starting
// beside a running command line does not mark its job interrupted, and a
// cancel asked for in one process (the Jobs page's button) reaches the one
// running the job, which polls for it.

// thisRunner names this process as a job's runner: "host:pid".
var thisRunner = func() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}()

// runnerAlive reports whether the process a record names still runs: a
// process of this host with that pid. This process is not (it calls
// Recover before it runs any job: a record with its pid is a previous
// process's, as for a server that is PID 1 in a container), nor is an
// unnamed runner (records before runners were kept) or another host's,
// which cannot be asked.
func runnerAlive(runner string) bool {
	host, pidText, ok := strings.Cut(runner, ":")
	me, _ := os.Hostname()
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil || host != me || pid == os.Getpid() || pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// watchCancels carries out the cancels other processes ask for, until
// the service's context ends.
func (s *Service) watchCancels() {
	tick := time.NewTicker(s.opts.CancelPoll)
	defer tick.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-tick.C:
		}
		for _, id := range s.active() {
			if asked, err := s.st.CancelRequested(context.Background(), id); err == nil && asked {
				s.opts.Logf("job %s: canceled by another process", id)
				s.Cancel(id)
			}
		}
	}
}

// active lists this process's queued and running jobs.
func (s *Service) active() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id, j := range s.byID {
		if !Finished(j.status().State) {
			ids = append(ids, id)
		}
	}
	return ids
}

package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Jobs may run in two processes on one state directory: the dashboard's
// and a command line's (`ontime train` or `ontime bench` on a stored
// network). Each record names its runner, so that a dashboard starting
// beside a running command line does not mark its job interrupted, and a
// cancel asked for in one process (the Jobs page's button) reaches the one
// running the job, which polls for it.
//
// A runner is alive while it holds its lock file (STATE/runners/PID-NONCE.lock,
// an flock taken when its jobs service starts and held until the process
// exits): the kernel drops the lock when the process dies, even while it is
// a zombie nobody has reaped, and a new process given the same pid has
// another nonce. Asking the pid alone (kill(pid, 0)) succeeds for both.

// thisRunner names this process as a job's runner: "host:pid:nonce".
var thisRunner = func() string {
	host, _ := os.Hostname()
	nonce := make([]byte, 6)
	rand.Read(nonce)
	return fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(nonce))
}()

// runnersDir holds the runners' lock files in a state directory.
const runnersDir = "runners"

var (
	heldMu sync.Mutex
	held   = map[string]*os.File{} // state directory → this process's lock, held until exit
)

// holdRunnerLock takes this process's runner lock in the state directory
// dir (once; it is never released before the process exits).
func holdRunnerLock(dir string) error {
	heldMu.Lock()
	defer heldMu.Unlock()
	if _, ok := held[dir]; ok {
		return nil
	}
	path := runnerLockPath(dir, thisRunner)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return fmt.Errorf("locking %s: %w", path, err)
	}
	held[dir] = f
	return nil
}

// runnerLockPath is a runner's lock file ("" for a runner named without a
// nonce, as records before the locks were).
func runnerLockPath(dir, runner string) string {
	parts := strings.Split(runner, ":")
	if len(parts) != 3 {
		return ""
	}
	return filepath.Join(dir, runnersDir, parts[1]+"-"+parts[2]+".lock")
}

// runnerAlive reports whether the process a record names still runs: a
// process of this host that holds the runner's lock in the state directory
// dir. This process is not (it calls Recover before it runs any job: a
// record of its own is a previous process's), nor is an unnamed runner or
// another host's, which cannot be asked. A record named without a nonce
// (before the locks) is asked by pid, a zombie counting as gone.
func runnerAlive(dir, runner string) bool {
	parts := strings.Split(runner, ":")
	me, _ := os.Hostname()
	if len(parts) < 2 || parts[0] != me || runner == thisRunner {
		return false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return false
	}
	path := runnerLockPath(dir, runner)
	if path == "" {
		return pidRuns(pid)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false // no lock file: that runner is gone (or never ran here)
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true
	}
	if err == nil {
		os.Remove(path) // its process ended: the file is not needed again
	}
	return false
}

// pidRuns reports whether a process with that pid runs and is not a zombie.
func pidRuns(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil || p.Signal(syscall.Signal(0)) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: the signal is all there is to ask
	}
	// pid (comm) STATE …: comm may hold spaces and parentheses.
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
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

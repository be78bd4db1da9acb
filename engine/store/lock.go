package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/ontime-routing/ontime/engine"
)

// lockFile marks the process that runs jobs on a state directory.
const lockFile = "serve.lock"

// Claim makes this process the one that runs jobs on the state directory
// (ontime serve), until it exits or the store closes: a second server on the
// same directory would mark the first one's running jobs interrupted and
// run its own beside them, so it is refused, naming the holder. Commands
// that only read or add networks need no claim (SQLite serializes them).
func (s *Store) Claim() error {
	path := filepath.Join(s.Dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return engine.DiskError(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who := strings.TrimSpace(string(holder))
			if who == "" {
				who = "another process"
			} else {
				who = "process " + who
			}
			return engine.Errorf(engine.ECONFLICT, "state directory %s is in use by another ontime serve (%s): stop it, or give this one its own --state", s.Dir, who)
		}
		return fmt.Errorf("locking %s: %w", path, err)
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	s.lock = f // held (and the lock with it) until Close or exit
	return nil
}

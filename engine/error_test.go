package engine

import (
	"fmt"
	"os"
	"syscall"
	"testing"
)

func TestDiskErrorIsStorage(t *testing.T) {
	for _, err := range []error{syscall.ENOSPC, &os.PathError{Op: "write", Path: "x", Err: syscall.EDQUOT}, fmt.Errorf("w: %w", syscall.EFBIG)} {
		if ErrorCode(DiskError(err)) != ESTORAGE {
			t.Errorf("%v: not a storage error", err)
		}
	}
	if ErrorCode(DiskError(os.ErrNotExist)) == ESTORAGE {
		t.Error("a missing file is no full disk")
	}
}

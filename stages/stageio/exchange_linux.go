package stageio

import (
	"errors"

	"golang.org/x/sys/unix"
)

var errNoExchange = errors.New("atomic exchange not supported")

// exchange swaps the directories a and b in one atomic rename.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTSUP) {
		return errNoExchange
	}
	return err
}

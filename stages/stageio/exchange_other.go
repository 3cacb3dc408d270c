//go:build !linux

package stageio

import "errors"

var errNoExchange = errors.New("atomic exchange not supported")

// exchange is not available here: Commit renames twice instead.
func exchange(a, b string) error { return errNoExchange }

package pipeline

import (
	"fmt"
	"os"

	"github.com/renn-go/renn/stages/pipeline/build"
)

// buildKey identifies a binary's content cheaply, for remembering its
// build flaws: a plan has hundreds of instances on a handful of binaries.
type buildKey struct {
	path  string
	size  int64
	mtime int64
}

// buildFlaws returns build.Flaws of the binary at path, remembered by
// path, size and modification time.
func (h *Judge) BuildFlaws(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	key := buildKey{path, fi.Size(), fi.ModTime().UnixNano()}
	h.mu.Lock()
	flaw, ok := h.flaws[key]
	h.mu.Unlock()
	if ok {
		return flaw
	}
	flaw = build.Flaws(path)
	h.mu.Lock()
	h.flaws[key] = flaw
	h.mu.Unlock()
	return flaw
}

// binaryChange is the staleness reason for an instance whose binary's sum
// differs from its stamp's. It says so when the binary was not built the
// way the pipeline builds, the usual cause after a build by hand.
func (h *Judge) binaryChange(p *Plan, binary string) string {
	flaw := h.BuildFlaws(binary)
	if flaw == "" {
		return "binary changed"
	}
	return fmt.Sprintf("binary changed: %s was not built by the pipeline (%s): rebuild with %s, or let pipeline run build it",
		p.Config.Rel(binary), flaw, build.HandBuild)
}

package pipeline

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// State says whether an instance's output directory is complete and current.
type State int

const (
	UpToDate State = iota // complete, and nothing it depends on changed
	Stale                 // complete once, but its binary, flags, inputs or outputs changed
	Missing               // not complete: never run, or the last run failed or was interrupted
)

func (s State) String() string {
	switch s {
	case UpToDate:
		return "up to date"
	case Stale:
		return "stale"
	case Missing:
		return "missing"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Status is the state of one instance and the reason for it.
type Status struct {
	Instance *Instance
	State    State
	Reason   string
	Job      Job // its last batch job, if it was handed to a batch scheduler (see slurm.AttachJobs)
}

// A Job is the job of a batch scheduler that last ran an instance, or is
// to run it, as WriteStatus shows it.
type Job interface {
	String() string      // one line: the job, its state and what it recorded
	LastLines() []string // the last lines of a failed job's stderr; nil if none
}

// Assess judges inst, run with its binary in binDir, on the files as they
// are now, and returns its fingerprint too; that is nil when the binary
// cannot be read.
func (h *Judge) Assess(p *Plan, inst *Instance, binDir string) (Status, *Fingerprint, error) {
	st := Status{Instance: inst}
	stamp, err := ReadStamp(inst.OutDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		stamp = nil
		st.State, st.Reason = Missing, "no stamp (never run, or the last run failed or was interrupted)"
	case err != nil:
		stamp = nil
		st.State, st.Reason = Missing, err.Error()
	}
	bin := BinaryPath(binDir, inst.Stage)
	fp, err := h.Fingerprint(p, inst, bin)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return st, nil, err
		}
		if stamp != nil {
			st.State, st.Reason = Stale, "binary not found: "+p.Config.Rel(bin)
		}
		return st, nil, nil
	}
	if stamp == nil {
		return st, fp, nil
	}
	reason, err := h.staleness(p, inst, stamp, fp)
	if err != nil {
		return st, nil, err
	}
	if reason != "" {
		st.State, st.Reason = Stale, reason
	}
	return st, fp, nil
}

// Status judges every instance of p against the binaries in binDir. An
// instance whose own files are current but whose upstream is not is stale:
// it reruns if the upstream's rerun changes its outputs. Status reads files
// but changes nothing (it does not build binaries either).
func (p *Plan) Status(binDir string) ([]Status, error) {
	h := NewJudge()
	out := make([]Status, len(p.Instances))
	byInst := make(map[*Instance]State, len(p.Instances))
	for i, inst := range p.Instances {
		st, _, err := h.Assess(p, inst, binDir)
		if err != nil {
			return nil, err
		}
		if st.State == UpToDate {
			for _, d := range inst.Deps {
				if s := byInst[d]; s != UpToDate {
					st.State, st.Reason = Stale, fmt.Sprintf("upstream %s is %s", d.ID, s)
					break
				}
			}
		}
		byInst[inst] = st.State
		out[i] = st
	}
	return out, nil
}

// WriteStatus prints one line per instance: its ID, state and reason, and
// its last batch job if known, followed by the tail of a failed job's
// stderr.
func WriteStatus(w io.Writer, sts []Status) error {
	idWidth, stateWidth := 0, 0
	for _, st := range sts {
		idWidth = max(idWidth, len(st.Instance.ID))
		stateWidth = max(stateWidth, len(st.State.String()))
	}
	for _, st := range sts {
		line := fmt.Sprintf("%-*s  %s", idWidth, st.Instance.ID, st.State)
		if st.Reason != "" {
			line = fmt.Sprintf("%-*s  %-*s  %s", idWidth, st.Instance.ID, stateWidth, st.State, st.Reason)
		}
		if st.Job != nil {
			line = fmt.Sprintf("%-*s  %-*s  [%s]", idWidth, st.Instance.ID, stateWidth, st.State, st.Job)
			if st.Reason != "" {
				line += "  " + st.Reason
			}
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
		if st.Job != nil {
			for _, l := range st.Job.LastLines() {
				if _, err := fmt.Fprintf(w, "    | %s\n", l); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

package dlgbp

// Trace makes d record the free energy after every outer step into *tr.
func (d *DLGBP) Trace(tr *[]float64) { d.trace = tr }

// Sweep runs one inner sweep (every block once) and returns its largest
// violation, for benchmarks of the hot loop.
func (d *DLGBP) Sweep() float64 {
	viol := 0.0
	for k := range d.blocks {
		viol = max(viol, d.update(&d.blocks[k]))
	}
	return viol
}

// StepHook makes d call f after every outer step with the step's largest
// belief change, its inner loop's tolerance and its inner sweeps.
func (d *DLGBP) StepHook(f func(delta, innerTol float64, sweeps int)) { d.stepHook = f }

// SetStallWindow sets how many outer steps without a new smallest step
// count as a stall (default stallWindow).
func (d *DLGBP) SetStallWindow(n int) { d.stallWindow = n }

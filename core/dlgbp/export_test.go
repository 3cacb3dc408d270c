package dlgbp

// Trace makes d record the free energy after every outer step into *tr.
func (d *DLGBP) Trace(tr *[]float64) { d.trace = tr }

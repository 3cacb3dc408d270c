package gbp

// Test hooks: the edges in schedule order and the raw log messages.

// EdgeOrder returns the (parent, child) pairs of the messages in sweep order.
func (gb *GBP) EdgeOrder() [][2]int {
	if gb.st == nil {
		return nil
	}
	out := make([][2]int, len(gb.st.edges))
	for e, ed := range gb.st.edges {
		out[e] = [2]int{ed.parent, ed.child}
	}
	return out
}

// Messages returns a copy of every log message, in EdgeOrder.
func (gb *GBP) Messages() [][]float64 {
	if gb.st == nil {
		return nil
	}
	out := make([][]float64, len(gb.st.edges))
	for e := range out {
		out[e] = append([]float64(nil), gb.message(e)...)
	}
	return out
}

// SetMessages overwrites every log message, in EdgeOrder.
func (gb *GBP) SetMessages(msgs [][]float64) {
	for e := range gb.st.edges {
		copy(gb.message(e), msgs[e])
	}
}

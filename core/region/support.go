package region

// Prune removes, by generalized arc consistency over edges, every region
// state that no configuration of positive probability can take and that
// local reasoning can rule out: allowed starts as the states each region's
// own factors allow (one table per region, shaped as the beliefs) and is
// narrowed, over every edge P→C, to S_C ∩ proj(S_P) and S_P ∩ lift(S_C) until
// nothing changes. Afterwards a child state is allowed exactly when some
// allowed parent state restricts to it, and a parent state only when the
// state it restricts to is allowed, so a method that masks the removed states
// never divides a zero parent marginal by a positive child belief. It reports
// whether any state was removed.
func Prune(allowed [][]bool, edges []Edge) bool {
	removed := false
	var seen []bool
	for changed := true; changed; {
		changed = false
		for _, e := range edges {
			par, ch := allowed[e.Parent], allowed[e.Child]
			if cap(seen) < len(ch) {
				seen = make([]bool, len(ch))
			}
			seen = seen[:len(ch)]
			clear(seen)
			for x, y := range e.Map {
				switch {
				case !par[x]:
				case ch[y]:
					seen[y] = true
				default:
					par[x] = false
					changed = true
				}
			}
			for y, ok := range ch {
				if ok && !seen[y] {
					ch[y] = false
					changed = true
				}
			}
			removed = removed || changed
		}
	}
	return removed
}

package outputs

import (
	"testing"

	"github.com/renn-go/renn/formats"
)

func TestSettingLabel(t *testing.T) {
	for _, c := range []struct {
		name, source string
		gamma        float64
		key, label   string
	}{
		{"grid10-Ju10-hu1-3", "sample-model ising couplings=uniform:10 fields=uniform:1", 0, "grid10-Ju10-hu1", "grid 10x10, J ~ U(−10,10), h ~ U(−1,1)"},
		{"torus10-Ju5-hu1-0", "sample-model ising couplings=uniform:5 fields=uniform:1", 0, "torus10-Ju5-hu1", "torus 10x10, J ~ U(−5,5), h ~ U(−1,1)"},
		{"complete16-gamma4-12", "sample-model ising", 4, "complete16-gamma4", "K16, J ~ N(0,1), h ~ N(0,4²)"},
		{"bipartite20x20-Jn2-hu1-9", "sample-model ising couplings=normal:2 fields=uniform:1", 0, "bipartite20x20-Jn2-hu1", "bipartite 20+20, J ~ N(0,2²), h ~ U(−1,1)"},
		{"regular100d3-Jn1-hn1-0", "sample-model ising couplings=normal:1 fields=normal:1", 1, "regular100d3-Jn1-hn1", "regular100d3, J ~ N(0,1), h ~ N(0,1)"},
		{"uai-model", "sample-model uai", 0, "uai-model", "uai, J ~ N(0,1), h ~ N(0,0²)"},
	} {
		info := formats.ModelInfoRow{Name: c.name, Source: c.source, Gamma: c.gamma}
		if got := SettingKey(c.name); got != c.key {
			t.Errorf("settingKey(%q) = %q, want %q", c.name, got, c.key)
		}
		if got := settingLabel(info); got != c.label {
			t.Errorf("settingLabel(%q) = %q, want %q", c.name, got, c.label)
		}
	}
}

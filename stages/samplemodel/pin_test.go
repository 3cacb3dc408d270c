package samplemodel

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/renn-go/renn/formats"
)

// valuesDigest is the sha256 of every value of models.parquet and
// model_info.parquet in dir (row order, little-endian float bits), and the
// provenance params of both files.
func valuesDigest(t *testing.T, dir string) (models, info, params string) {
	t.Helper()
	rows, prov, err := formats.ReadModels(filepath.Join(dir, formats.ModelsFile))
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	put := func(v uint64) { h.Write(binary.LittleEndian.AppendUint64(nil, v)) }
	for _, r := range rows {
		put(uint64(r.ModelID))
		put(uint64(r.FactorID))
		put(uint64(len(r.Vars)))
		for _, v := range r.Vars {
			put(uint64(v))
		}
		put(uint64(len(r.LogTable)))
		for _, x := range r.LogTable {
			put(math.Float64bits(x))
		}
	}
	models = hex.EncodeToString(h.Sum(nil))
	infos, iprov, err := formats.ReadModelInfo(filepath.Join(dir, formats.ModelInfoFile))
	if err != nil {
		t.Fatal(err)
	}
	h = sha256.New()
	str := func(s string) { put(uint64(len(s))); h.Write([]byte(s)) }
	for _, r := range infos {
		put(uint64(r.ModelID))
		str(r.Name)
		put(uint64(len(r.Cards)))
		for _, c := range r.Cards {
			put(uint64(c))
		}
		str(r.Graph)
		put(math.Float64bits(r.Gamma))
		put(uint64(r.Seed))
		str(r.Source)
	}
	info = hex.EncodeToString(h.Sum(nil))
	if prov.Params != iprov.Params {
		t.Fatalf("params differ between files: %s vs %s", prov.Params, iprov.Params)
	}
	return models, info, prov.Params
}

// The paper's collections are pinned, so that no change to the generator
// (such as a new family) moves a committed model, model name or provenance.
// Fields normal:G with couplings normal:1 are the same collection as Gamma
// G, down to the bytes of the files.
func TestIsingPinnedOutputs(t *testing.T) {
	for _, tt := range []struct {
		p                    IsingParams
		models, info, params string
	}{
		{IsingParams{Graph: "grid", Size: 3, Gamma: 0.1, Count: 2, Seed: 5},
			"1d91e5b0c90e669c234f31cc82d7f8eab2fac89809a3ae7e12b16dd1f735eac0",
			"d79fef4e0272e766446bf1f16f448dd3874be48bdfd44f9b0f856ebf314ba708",
			`{"graph":"grid","size":3,"gamma":0.1,"count":2,"seed":5}`},
		{IsingParams{Graph: "torus", Size: 3, Gamma: 1, Count: 2, Seed: 5},
			"e7703659d05b3191e59abcae111c232ec3a6551c167987cf1db193576e89ca10",
			"38e2b5c83e70b87cae060ec71599c6ffe9e1c50bb499b794c4d80eeb48e7c111",
			`{"graph":"torus","size":3,"gamma":1,"count":2,"seed":5}`},
		{IsingParams{Graph: "complete", Size: 4, Gamma: 2.5, Count: 2, Seed: 5},
			"cb1d2687d697295e672f1743a71a8e353a2fa65f38972af82b8e22cb24d5e152",
			"cbec923ff6f86dbb23fec6e72b41e09d1aedf580db68eac2327765f59833b597",
			`{"graph":"complete","size":4,"gamma":2.5,"count":2,"seed":5}`},
	} {
		dir := filepath.Join(t.TempDir(), "old")
		if err := Ising(tt.p, dir); err != nil {
			t.Fatal(err)
		}
		m, i, pr := valuesDigest(t, dir)
		if m != tt.models || i != tt.info || pr != tt.params {
			t.Errorf("%s: digests %s %s params %s; want %s %s %s", tt.p.Graph, m, i, pr, tt.models, tt.info, tt.params)
		}
		// The same family asked for with the distribution flags.
		q := tt.p
		q.Couplings, q.Fields, q.Gamma = "normal:1", "normal:"+strconv.FormatFloat(tt.p.Gamma, 'g', -1, 64), 0
		dir2 := filepath.Join(t.TempDir(), "new")
		if err := Ising(q, dir2); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{formats.ModelsFile, formats.ModelInfoFile} {
			a, _ := formats.FileSHA256(filepath.Join(dir, f))
			b, _ := formats.FileSHA256(filepath.Join(dir2, f))
			if a != b {
				t.Errorf("%s: %s differs between Gamma %v and %+v", tt.p.Graph, f, tt.p.Gamma, q)
			}
		}
	}
	// The first and last values of the grid collection, in plain sight.
	dir := t.TempDir()
	if err := Ising(IsingParams{Graph: "grid", Size: 3, Couplings: "normal:1", Fields: "normal:0.1", Count: 2, Seed: 5}, dir); err != nil {
		t.Fatal(err)
	}
	rows, _, err := formats.ReadModels(filepath.Join(dir, formats.ModelsFile))
	if err != nil {
		t.Fatal(err)
	}
	if first, last := rows[0], rows[len(rows)-1]; len(rows) != 42 || first.LogTable[0] != 0.05574755158811362 ||
		last.Vars[0] != 7 || last.Vars[1] != 8 || last.LogTable[0] != 0.9943820352929056 {
		t.Errorf("%d rows, first %v, last %v", len(rows), first, last)
	}
	infos, _, _ := formats.ReadModelInfo(filepath.Join(dir, formats.ModelInfoFile))
	if in := infos[1]; in.Name != "grid3-gamma0.1-1" || in.Graph != "grid" || in.Gamma != 0.1 || in.Seed != 6938807493011938172 || in.Source != "sample-model ising" {
		t.Errorf("model_info %+v", in)
	}
}

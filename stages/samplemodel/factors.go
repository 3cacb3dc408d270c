package samplemodel

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// FactorParams are the parameters of a collection of models of one factor
// family (mrf.FactorFamily): the UAI-like families that are not Ising
// models.
type FactorParams struct {
	Family string `json:"family"` // csp, noisy-or, pedigree or potts
	Size   int    `json:"size"`   // the family's size (mrf.FactorFamily; potts: variables)
	Count  int    `json:"count"`
	Seed   int64  `json:"seed"`
	Hide   string `json:"hide,omitempty"` // hidden variables: a list of indices (hiddenVars)
	// Potts is the potts family's shape (mrf.Potts, N = Size); zero for
	// the other families.
	Potts PottsShape `json:"potts,omitzero"`
}

// PottsShape is the shape of a potts model beyond its size.
type PottsShape struct {
	States    int `json:"states"`
	Treewidth int `json:"treewidth"`
	Edges     int `json:"edges"`
}

// PottsParams returns the potts shape on n variables from the flags given:
// mrf.DefaultPotts(n) for those not given (nil), and the edges as the
// density (edges per variable) times n, rounded.
func PottsParams(n int, states, treewidth *int, density *float64) PottsShape {
	d := mrf.DefaultPotts(n)
	sh := PottsShape{States: d.K, Treewidth: d.Treewidth, Edges: d.Edges}
	if states != nil {
		sh.States = *states
	}
	if treewidth != nil {
		sh.Treewidth = *treewidth
	}
	if density != nil {
		sh.Edges = int(math.Round(*density * float64(n)))
	} else if treewidth != nil {
		// The default density within the bounds of the given treewidth.
		sh.Edges = mrf.Potts{N: n, K: sh.States, Treewidth: sh.Treewidth}.DefaultEdges()
	}
	return sh
}

func (p FactorParams) potts() mrf.Potts {
	return mrf.Potts{N: p.Size, K: p.Potts.States, Treewidth: p.Potts.Treewidth, Edges: p.Potts.Edges}
}

// Check reports whether p can be generated; its errors name the flags of
// 'sample-model factors'.
func (p FactorParams) Check() error {
	if p.Family == mrf.FamilyPotts {
		if err := p.potts().Check(); err != nil {
			return fmt.Errorf("--family potts --size %d --states %d --treewidth %d (%d edges): %w",
				p.Size, p.Potts.States, p.Potts.Treewidth, p.Potts.Edges, err)
		}
	} else if p.Potts != (PottsShape{}) {
		return fmt.Errorf("--states, --treewidth and --density are for --family potts, not %s", p.Family)
	} else if err := (mrf.FactorFamily{Family: p.Family, Size: p.Size}).Check(); err != nil {
		return fmt.Errorf("--family %s --size %d: %w", p.Family, p.Size, err)
	}
	if p.Count < 1 || p.Count > 10_000 {
		return fmt.Errorf("--count must be in [1, 10000], got %d", p.Count)
	}
	// The collection is held in memory: a few hundred bytes per unit of size.
	if int64(p.Count)*int64(p.Size) > mrf.MaxFactorFamilySize {
		return fmt.Errorf("--count %d models of --size %d is too large (at most %d in all)", p.Count, p.Size, mrf.MaxFactorFamilySize)
	}
	return nil
}

// Factors writes Count models of the family. Model k is drawn from seed
// mrf.DeriveSeed(Seed, k) and named FAMILYSIZE-k ("csp40-0",
// "noisy-or60-1", "pedigree60-0"); its graph is the family's name. Models
// with evidence carry it as trailing point-mass factors (mrf.Model.Observe).
func Factors(p FactorParams, out string) error {
	if err := p.Check(); err != nil {
		return err
	}
	generate := mrf.FactorFamily{Family: p.Family, Size: p.Size}.Generate
	source := fmt.Sprintf("sample-model factors family=%s size=%d", p.Family, p.Size)
	if p.Family == mrf.FamilyPotts {
		generate = p.potts().Generate
		source += fmt.Sprintf(" states=%d treewidth=%d edges=%d", p.Potts.States, p.Potts.Treewidth, p.Potts.Edges)
	}
	models := make([]stageio.Model, p.Count)
	for k := range models {
		seed := mrf.DeriveSeed(p.Seed, k)
		m, err := generate(seed)
		if err != nil {
			return fmt.Errorf("model %d: %w", k, err)
		}
		hidden, err := hiddenVars(p.Hide, nil, len(m.Cards))
		if err != nil {
			return fmt.Errorf("model %d: %w", k, err)
		}
		models[k] = stageio.Model{ID: int32(k), Model: m, Info: mrf.Info{
			Name:   fmt.Sprintf("%s%d-%d", p.Family, p.Size, k),
			Graph:  p.Family,
			Seed:   seed,
			Source: source + hideSource(p.Hide),
			Hidden: hidden,
		}}
	}
	return writeModels(out, "sample-model factors", p, p.Seed, nil, models)
}

// ExportParams name the model directories to export as UAI files.
type ExportParams struct {
	Models []string `json:"models"`
}

// Export writes every model of the directories p.Models into out as a UAI
// MARKOV file NAME.uai, NAME its model_info name, and its evidence (the
// trailing point-mass factors, formats.SplitEvidence) as NAME.uai.evid.
// A model with hidden variables (model_info's hidden column; UAI has no
// marker for them) also gets NAME.uai.hidden: its hidden variable indices,
// comma-separated on one line, the form of 'sample-model uai --hide', which
// imports of the directory read back. Names must be distinct, non-empty
// and usable as file names. Other .uai, .evid and .hidden files in out are
// removed, so out holds exactly these models and 'sample-model uai --in
// out' imports them again, in order of name, hidden markers included.
func Export(p ExportParams, out string) error {
	if len(p.Models) == 0 {
		return errors.New("--models: give at least one models directory")
	}
	var outs []stageio.Output
	names := map[string]string{}
	for _, dir := range p.Models {
		models, _, err := stageio.LoadModels(dir)
		if err != nil {
			return err
		}
		for _, e := range models {
			name := e.Info.Name
			if name == "" || name != filepath.Base(name) || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
				return fmt.Errorf("%s: model %d: name %q cannot be a file name", dir, e.ID, name)
			}
			name = strings.TrimSuffix(name, ".uai")
			if prev, ok := names[name]; ok {
				return fmt.Errorf("%s: model %d: name %q also names a model of %s", dir, e.ID, name, prev)
			}
			names[name] = dir
			base, obs := formats.SplitEvidence(e.Model)
			outs = append(outs, stageio.Output{Name: name + ".uai", Write: func(path string) error { return formats.WriteUAIFile(path, base) }})
			if len(obs) > 0 {
				outs = append(outs, stageio.Output{Name: name + ".uai" + formats.EvidenceSuffix, Write: func(path string) error { return formats.WriteEvidenceFile(path, obs) }})
			}
			if len(e.Info.Hidden) > 0 {
				line := []byte(hiddenList(e.Info.Hidden) + "\n")
				outs = append(outs, stageio.Output{Name: name + ".uai" + HiddenSuffix, Write: func(path string) error { return os.WriteFile(path, line, 0o644) }})
			}
		}
	}
	if err := stageio.Commit(out, outs...); err != nil {
		return err
	}
	return removeOtherUAI(out, outs)
}

// removeOtherUAI removes the .uai and .evid files of dir that are not among
// outs.
func removeOtherUAI(dir string, outs []stageio.Output) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("list %s: %w", dir, err)
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !(strings.HasSuffix(n, ".uai") || strings.HasSuffix(n, formats.EvidenceSuffix) || strings.HasSuffix(n, HiddenSuffix)) {
			continue
		}
		if slices.ContainsFunc(outs, func(o stageio.Output) bool { return o.Name == n }) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove stale %s: %w", filepath.Join(dir, n), err)
		}
	}
	return nil
}

// HiddenSuffix ends the side file of an exported model with hidden
// variables: NAME.uai.hidden holds their indices, comma-separated.
const HiddenSuffix = ".hidden"

// hiddenList writes hidden variable indices as --hide takes them.
func hiddenList(hidden []int) string {
	fs := make([]string, len(hidden))
	for i, v := range hidden {
		fs[i] = strconv.Itoa(v)
	}
	return strings.Join(fs, ",")
}

// hideOf is the --hide spec of the UAI file path in a directory import:
// flag, the spec given for every model, or the file's side file
// path+HiddenSuffix (written by Export); both is an error.
func hideOf(flag, path string) (string, error) {
	side := path + HiddenSuffix
	b, err := os.ReadFile(side)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return flag, nil
	case err != nil:
		return "", fmt.Errorf("read hidden markers: %w", err)
	case flag != "":
		return "", fmt.Errorf("--hide %s and %s both mark hidden variables: keep one", flag, side)
	}
	spec := strings.TrimSpace(string(b))
	if spec == "" {
		return "", fmt.Errorf("%s: no variable indices (a comma-separated list expected)", side)
	}
	return spec, nil
}

// uaiDir imports every NAME.uai of the directory p.In, sorted by name, as
// model k (k from 0), each with its evidence file NAME.uai.evid or
// NAME.evid if one exists (not both; a file with several cases takes case
// p.Case). A directory without .uai files is an error, as is p.Evid (the
// evidence comes with each file).
func uaiDir(p UAIParams, out string) error {
	if p.Evid != "" {
		return fmt.Errorf("--evid %s with a directory --in %s: each model's evidence is its NAME.uai.evid in the directory", p.Evid, p.In)
	}
	entries, err := os.ReadDir(p.In)
	if err != nil {
		return fmt.Errorf("read UAI directory: %w", err)
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".uai") {
			files = append(files, e.Name()) // ReadDir sorts by name
		}
	}
	if len(files) == 0 {
		return fmt.Errorf("%s: no .uai files", p.In)
	}
	var models []stageio.Model
	var inputs []string
	withEvid := false
	for k, f := range files {
		path := filepath.Join(p.In, f)
		evid := ""
		for _, cand := range []string{path + formats.EvidenceSuffix, strings.TrimSuffix(path, ".uai") + formats.EvidenceSuffix} {
			if _, err := os.Stat(cand); err == nil {
				if evid != "" {
					return fmt.Errorf("%s: two evidence files, %s and %s: keep one", path, evid, cand)
				}
				evid = cand
			}
		}
		m, kind, in, err := readUAIModel(path, evid, p.Case)
		if err != nil {
			return err
		}
		source := UAIParams{In: path, Evid: evid, Case: p.Case}.source(kind)
		hide, err := hideOf(p.Hide, path)
		if err != nil {
			return err
		}
		hidden, err := hiddenVars(hide, nil, len(m.Cards))
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		models = append(models, stageio.Model{ID: int32(k), Model: m, Info: mrf.Info{Name: f, Graph: "uai", Source: source + hideSource(hide), Hidden: hidden}})
		inputs = append(inputs, in...)
		withEvid = withEvid || evid != ""
	}
	if p.Case != 0 && !withEvid {
		return fmt.Errorf("--case %d: no model in %s has an evidence file (NAME.uai.evid or NAME.evid)", p.Case, p.In)
	}
	return writeModels(out, "sample-model uai", p, 0, inputs, models)
}

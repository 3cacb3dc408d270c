package trainrenn

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
	"github.com/renn-go/renn/core/renn"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// AmortizeParams are the parameters of train-renn --amortize: one family
// network trained on every model of Models.
type AmortizeParams struct {
	Models  string            `json:"models"`
	IDs     []int32           `json:"ids,omitempty"`
	Scheme  string            `json:"scheme"`
	Options renn.TrainOptions `json:"options"`
}

// NetworkKind names the architecture network.parquet holds (renn.Family);
// a file of another kind is refused.
const NetworkKind = "renn-family-v1"

// Architecture is how the family network is built and reads a model.
type Architecture struct {
	Kind          string `json:"kind"`
	StateFeatures int    `json:"state_features"`
	RootFeatures  int    `json:"root_features"`
	Hidden        int    `json:"hidden"`
	Sweeps        int    `json:"sweeps"`
	Scheme        string `json:"scheme"` // the region graph scheme it was trained on
}

// FamilyInfo describes the training family; inference refuses models of
// another graph kind or cardinality.
type FamilyInfo struct {
	Graph       string    `json:"graph"`
	Cardinality int       `json:"cardinality"`
	Sizes       []int     `json:"sizes"`  // distinct numbers of variables
	Gammas      []float64 `json:"gammas"` // distinct gammas
	Sources     []string  `json:"sources"`
	Models      int       `json:"models"`
}

// Training is what training did.
type Training struct {
	Train, Validation int
	Epochs, BestEpoch int
	TrainLoss         float64
	ValidationLoss    *float64 `json:",omitempty"`
	Seconds           float64
	FeatureSeconds    float64
}

// NetworkParams are the provenance parameters of network.parquet.
type NetworkParams struct {
	AmortizeParams
	Architecture Architecture `json:"architecture"`
	Family       FamilyInfo   `json:"family"`
	Training     Training     `json:"training"`
}

// Check validates p before any file is read.
func (p AmortizeParams) Check() error { return p.Options.Check() }

// Amortize trains one family network on every model of p.Models and writes
// out/network.parquet.
func Amortize(ctx context.Context, p AmortizeParams, out string) error {
	if err := p.Check(); err != nil {
		return err
	}
	models, inputs, err := stageio.LoadModels(p.Models)
	if err != nil {
		return err
	}
	if models, err = stageio.SelectModels(models, p.IDs, p.Models); err != nil {
		return err
	}
	fam, err := describeFamily(models, p.Models)
	if err != nil {
		return err
	}
	var ins []renn.Instance
	scheme := ""
	for _, e := range models {
		g, err := region.Build(e.Model, e.Info.Graph, p.Scheme)
		if err != nil {
			return fmt.Errorf("%s: model %d (%s): region graph: %w", p.Models, e.ID, e.Info.Name, err)
		}
		if scheme == "" {
			scheme = g.Scheme
		} else if g.Scheme != scheme {
			return fmt.Errorf("%s: model %d (%s) gets region graph %s, the others %s: one family network reads one kind of region graph", p.Models, e.ID, e.Info.Name, g.Scheme, scheme)
		}
		ins = append(ins, renn.Instance{Model: e.Model, Graph: g})
	}
	slog.Info("amortize", "models", len(ins), "scheme", scheme, "graph", fam.Graph, "cardinality", fam.Cardinality)
	f, rep, err := renn.TrainFamily(ctx, ins, p.Options, func(epoch int, train, val float64) {
		slog.Info("epoch", "epoch", fmt.Sprintf("%d/%d", epoch, p.Options.Epochs), "train_loss", train, "validation_loss", val)
	})
	if err != nil {
		return fmt.Errorf("%s: train: %w", p.Models, err)
	}
	slog.Info("trained", "epochs", rep.Epochs, "best_epoch", rep.BestEpoch, "train_loss", rep.TrainLoss,
		"validation_loss", rep.ValidationLoss, "seconds", rep.Seconds)
	cfg := f.Net.Config()
	np := NetworkParams{AmortizeParams: p,
		Architecture: Architecture{Kind: NetworkKind, StateFeatures: cfg.StateFeatures, RootFeatures: cfg.RootFeatures,
			Hidden: cfg.Hidden, Sweeps: f.Sweeps, Scheme: scheme},
		Family: fam,
		Training: Training{Train: rep.Train, Validation: rep.Validation, Epochs: rep.Epochs, BestEpoch: rep.BestEpoch,
			TrainLoss: rep.TrainLoss, Seconds: rep.Seconds, FeatureSeconds: rep.FeatureSeconds}}
	if !math.IsNaN(rep.ValidationLoss) {
		v := rep.ValidationLoss
		np.Training.ValidationLoss = &v
	}
	prov, err := stageio.Provenance("train-renn", np, p.Options.Seed, inputs)
	if err != nil {
		return err
	}
	var rows []formats.NetworkRow
	for _, par := range f.Net.Params() {
		r, c := shape(par.Name, cfg.StateFeatures+cfg.RootFeatures, cfg.Hidden, len(par.Value))
		rows = append(rows, formats.NetworkRow{Name: par.Name, Rows: int32(r), Cols: int32(c), Values: par.Value})
	}
	return stageio.Commit(out, stageio.Output{Name: formats.NetworkFile,
		Write: func(path string) error { return formats.WriteNetwork(path, rows, prov) }})
}

// shape is a parameter's matrix shape: hidden.w is inputs x hidden, the
// others are vectors (one row).
func shape(name string, in, hidden, n int) (rows, cols int) {
	if name == "hidden.w" {
		return in, hidden
	}
	return 1, n
}

// describeFamily checks that the models share one graph kind and one
// cardinality and describes them.
func describeFamily(models []stageio.Model, dir string) (FamilyInfo, error) {
	var f FamilyInfo
	for i, e := range models {
		k, err := cardinality(e.Model)
		if err != nil {
			return f, fmt.Errorf("%s: model %d (%s): %w", dir, e.ID, e.Info.Name, err)
		}
		if i == 0 {
			f.Graph, f.Cardinality = e.Info.Graph, k
		} else if e.Info.Graph != f.Graph || k != f.Cardinality {
			return f, fmt.Errorf("%s: model %d (%s) is a %s graph of cardinality %d, model %d a %s graph of cardinality %d: one family network is trained on one graph kind and cardinality",
				dir, e.ID, e.Info.Name, e.Info.Graph, k, models[0].ID, f.Graph, f.Cardinality)
		}
		if n := len(e.Model.Cards); !slices.Contains(f.Sizes, n) {
			f.Sizes = append(f.Sizes, n)
		}
		if !slices.Contains(f.Gammas, e.Info.Gamma) {
			f.Gammas = append(f.Gammas, e.Info.Gamma)
		}
		if !slices.Contains(f.Sources, e.Info.Source) {
			f.Sources = append(f.Sources, e.Info.Source)
		}
	}
	f.Models = len(models)
	slices.Sort(f.Sizes)
	slices.Sort(f.Gammas)
	slices.Sort(f.Sources)
	return f, nil
}

func cardinality(m *mrf.Model) (int, error) {
	k := m.Cards[0]
	for _, c := range m.Cards {
		if c != k {
			return 0, fmt.Errorf("variables of cardinality %d and %d: a family network needs one cardinality", k, c)
		}
	}
	return k, nil
}

// Weights is a loaded family network.
type Weights struct {
	Family *renn.Family
	Params NetworkParams
	Path   string // the file read
}

// LoadWeights reads a family network: dir/network.parquet, or the file
// itself when path is a file. Every error names the file.
func LoadWeights(path string) (*Weights, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, formats.NetworkFile)
	}
	rows, prov, err := formats.ReadNetwork(path)
	if err != nil {
		return nil, fmt.Errorf("weights %s: %w", path, err)
	}
	w := &Weights{Path: path}
	bad := func(format string, a ...any) (*Weights, error) {
		return nil, fmt.Errorf("weights %s: %s", path, fmt.Sprintf(format, a...))
	}
	if prov.Stage != "train-renn" {
		return bad("written by stage %q, not by train-renn --amortize", prov.Stage)
	}
	if err := json.Unmarshal([]byte(prov.Params), &w.Params); err != nil {
		return bad("provenance parameters: %v", err)
	}
	a := w.Params.Architecture
	if a.Kind != NetworkKind {
		return bad("network kind %q, want %s", a.Kind, NetworkKind)
	}
	if a.StateFeatures != renn.FamilyStateFeatures || a.RootFeatures != renn.FamilyRootFeatures || a.Hidden < 1 || a.Hidden > 1024 || a.Sweeps < 1 {
		return bad("architecture %+v does not fit this program (state features %d, root features %d, hidden 1..1024, sweeps >= 1)",
			a, renn.FamilyStateFeatures, renn.FamilyRootFeatures)
	}
	if w.Params.Family.Cardinality < 1 || w.Params.Family.Graph == "" {
		return bad("no training family recorded")
	}
	net, err := renn.NewFamilyNet(a.Hidden, 0)
	if err != nil {
		return bad("%v", err)
	}
	params := net.Params()
	if len(rows) != len(params) {
		return bad("%d parameter rows, want %d", len(rows), len(params))
	}
	for i, par := range params {
		r := rows[i]
		rr, cc := shape(par.Name, a.StateFeatures+a.RootFeatures, a.Hidden, len(par.Value))
		if r.Name != par.Name || int(r.Rows) != rr || int(r.Cols) != cc || len(r.Values) != len(par.Value) {
			return bad("row %d is %s (%dx%d, %d values), want %s (%dx%d)", i, r.Name, r.Rows, r.Cols, len(r.Values), par.Name, rr, cc)
		}
		for j, v := range r.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return bad("%s[%d] is %v", r.Name, j, v)
			}
		}
		copy(par.Value, r.Values)
	}
	w.Family = &renn.Family{Net: net, Sweeps: a.Sweeps}
	return w, nil
}

// Fits reports whether model e (region graph g) belongs to the family the
// weights were trained on: the same graph kind, cardinality and region
// graph scheme.
func (w *Weights) Fits(id int32, info mrf.Info, m *mrf.Model, g *region.Graph) error {
	f := w.Params.Family
	k, err := cardinality(m)
	if err != nil {
		return fmt.Errorf("model %d (%s): %w; weights %s were trained on cardinality %d", id, info.Name, err, w.Path, f.Cardinality)
	}
	switch {
	case info.Graph != f.Graph:
		return fmt.Errorf("model %d (%s) is a %s graph; weights %s were trained on %s graphs", id, info.Name, info.Graph, w.Path, f.Graph)
	case k != f.Cardinality:
		return fmt.Errorf("model %d (%s) has cardinality %d; weights %s were trained on cardinality %d", id, info.Name, k, w.Path, f.Cardinality)
	case g == nil || g.Scheme != w.Params.Architecture.Scheme:
		return fmt.Errorf("model %d (%s) gets region graph %s; weights %s were trained on %s region graphs", id, info.Name, schemeOf(g), w.Path, w.Params.Architecture.Scheme)
	}
	return nil
}

func schemeOf(g *region.Graph) string {
	if g == nil {
		return "(none)"
	}
	return g.Scheme
}

// withWeights adds the weights file, its sha256, the refinement cap and
// (when refined) the refinement to an estimate's params JSON.
func withWeights(params string, w *Weights, refine int, by string) (string, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(params), &m); err != nil {
		return "", err
	}
	sum, err := formats.FileSHA256(w.Path)
	if err != nil {
		return "", err
	}
	wm := map[string]any{"path": w.Path, "sha256": sum, "refine": refine}
	if by != "" {
		wm["refine_by"] = by
	}
	m["weights"] = wm
	b, err := json.Marshal(m)
	return string(b), err
}

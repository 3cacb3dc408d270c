// Command sample-model generates Ising models and UAI-like factor graphs,
// imports and exports UAI models, and draws exact samples from models. Run 'sample-model --help' for the flags.
package main

import (
	"fmt"
	"github.com/renn-go/renn/stages/cli"
	"github.com/renn-go/renn/stages/samplemodel"
)

type isingCmd struct {
	Graph     string   `enum:"grid,torus,complete,bipartite,regular" default:"grid" help:"Graph: grid (L x L, open boundary), torus (L x L, wrapped), complete (K_n), bipartite (K_{N,M}: every left-right pair coupled, an RBM) or regular (a random d-regular simple graph, drawn anew for every model)."`
	Size      *int     `help:"Grid or torus side L (n = L*L nodes), or the number of nodes n of a complete or regular graph. Required for every graph but bipartite, which takes --left and --right instead."`
	Left      *int     `placeholder:"N" help:"Bipartite only, required there: N left nodes, variables 0..N-1."`
	Right     *int     `placeholder:"M" help:"Bipartite only, required there: M right nodes, variables N..N+M-1."`
	Degree    *int     `placeholder:"D" help:"Regular only, required there: the degree d of every node (d < n, n*d even)."`
	Couplings string   `default:"normal:1" placeholder:"DIST" help:"Distribution of the couplings J_ij: normal:SIGMA (N(0, SIGMA^2)) or uniform:F (U(-F, F)), SIGMA and F finite and >= 0; or a scale range A..B (normal:A..B, uniform:A..B): every model draws its own SIGMA or F from U(A, B). The default normal:1 is the paper's."`
	Fields    string   `placeholder:"DIST" help:"Distribution of the fields h_i, written as for --couplings. Not given: normal with the standard deviation --gamma. Not together with --gamma."`
	Gamma     *float64 `placeholder:"G" help:"Standard deviation of the fields: h_i ~ N(0, gamma^2), the same as --fields normal:G. Not given: 1, unless --fields is given."`
	Count     int      `default:"1" help:"Number of models; model k uses a seed derived from --seed and k."`
	Seed      int64    `default:"1" help:"Base seed (math/rand/v2 PCG, the same models on every machine)."`
	Hide      string   `placeholder:"SPEC" help:"Mark variables hidden (never observed): 'sample-model data' then writes the visible values only, with their exact marginal log-probability. Patterns: right or left (bipartite: that side; right makes an RBM), interior (grid: every node off the boundary, 9 on 5x5), quarter (grid or torus: row and column both odd, 0-based: a quarter of the nodes for even L, no two adjacent), checkerboard (grid or torus: row+column odd, half the nodes). Or a comma-separated list of variable indices. Not given: every variable visible."`
	Out       string   `required:"" type:"path" help:"Output directory: models.parquet and model_info.parquet."`
}

// Validate makes every flag combination or value that cannot be honoured a
// usage error (exit 2), naming the flag.
func (c *isingCmd) Validate() error {
	bip := c.Graph == "bipartite"
	switch {
	case c.Gamma != nil && c.Fields != "":
		return fmt.Errorf("--fields and --gamma both given: --gamma G means --fields normal:G; give one of them")
	case bip && c.Size != nil:
		return fmt.Errorf("--size is not used with --graph bipartite: give --left and --right")
	case bip && (c.Left == nil || c.Right == nil):
		return fmt.Errorf("--graph bipartite needs --left and --right")
	case !bip && (c.Left != nil || c.Right != nil):
		return fmt.Errorf("--left and --right are only for --graph bipartite")
	case !bip && c.Size == nil:
		return fmt.Errorf("--graph %s needs --size", c.Graph)
	case c.Graph == "regular" && c.Degree == nil:
		return fmt.Errorf("--graph regular needs --degree")
	case c.Graph != "regular" && c.Degree != nil:
		return fmt.Errorf("--degree is only for --graph regular")
	}
	return c.params().Check()
}

func (c *isingCmd) params() samplemodel.IsingParams {
	deref := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	p := samplemodel.IsingParams{Graph: c.Graph, Size: deref(c.Size), Left: deref(c.Left), Right: deref(c.Right), Degree: deref(c.Degree),
		Couplings: c.Couplings, Fields: c.Fields, Count: c.Count, Seed: c.Seed, Hide: c.Hide}
	switch {
	case c.Gamma != nil:
		p.Gamma = *c.Gamma
	case c.Fields == "":
		p.Gamma = 1
	}
	return p
}

func (c *isingCmd) Run() error {
	return samplemodel.Ising(c.params(), c.Out)
}

type uaiCmd struct {
	In   string `required:"" type:"path" help:"UAI model file (MARKOV or BAYES), or a directory: every NAME.uai in it, sorted by name, becomes model k (k from 0), with its evidence file NAME.uai.evid or NAME.evid if there is one, and its hidden variables from NAME.uai.hidden if there is one (written by 'sample-model export')."`
	Evid string `type:"existingfile" help:"Evidence file (.evid) of a single --in file; observed variables become point masses."`
	Case int    `default:"0" help:"Which evidence case to apply when the evidence file holds several (a warning names the count when cases go unused); needs --evid, or a directory --in whose models have evidence files."`
	Hide string `placeholder:"LIST" help:"Mark variables hidden: a comma-separated list of variable indices (0-based, as in the UAI file), applied to every imported model (an error if a NAME.uai.hidden file in a directory --in marks them too). 'sample-model data' then writes the visible values only."`
	Out  string `required:"" type:"path" help:"Output directory: models.parquet and model_info.parquet."`
}

func (c *uaiCmd) params() samplemodel.UAIParams {
	return samplemodel.UAIParams{In: c.In, Evid: c.Evid, Case: c.Case, Hide: c.Hide}
}

// Validate makes a negative --case, or --case without evidence, a usage
// error (exit 2).
func (c *uaiCmd) Validate() error { return c.params().Check() }

func (c *uaiCmd) Run() error { return samplemodel.UAI(c.params(), c.Out) }

type factorsCmd struct {
	Family    string   `required:"" enum:"csp,noisy-or,pedigree,linkage,potts" help:"Family: csp (soft CSP: --size variables of 4 states, 3*size/2 ternary factors with zero and near-zero entries), noisy-or (--size binary findings, size/2 causes, noisy-OR CPTs with leak, half the findings observed), pedigree (--size individuals in generations of 8, genotype and phenotype of 3 states each, arity-4 Mendelian factors with zeros, phenotypes and genotypes partly observed), linkage (genetic linkage as in the UAI pedigree/linkage sets: --size individuals in generations of 6, 4 loci each with paternal and maternal alleles of up to 5 states, binary selectors linked by recombination, deterministic arity-4 transmission factors, typed markers as 1-state variables, affection statuses partly observed; size 24 gives 432 variables) or potts (--size variables of --states states on a random graph of treewidth at most --treewidth with --density pairwise factors per variable, and a unary factor each: object-detection-like, core/mrf/potts.go documents the scale). Every observation has positive probability."`
	Size      int      `required:"" help:"The family's size: variables (csp, >= 5; potts, >= 2), findings (noisy-or, >= 2) or individuals (pedigree, >= 9; linkage, >= 7); at most 100000."`
	States    *int     `help:"potts: states per variable (default 11)."`
	Treewidth *int     `help:"potts: the graph is a random subgraph of a k-tree of this k, its treewidth at most k (default 6, or size-1 if smaller)."`
	Density   *float64 `help:"potts: pairwise factors per variable; the graph keeps round(density*size) of the k-tree's edges, between size-1 and the k-tree's k(k+1)/2+(size-k-1)k (default 2.75, within those bounds)."`
	Count     int      `default:"1" help:"Number of models; model k uses a seed derived from --seed and k."`
	Seed      int64    `default:"1" help:"Base seed (math/rand/v2 PCG, the same models on every machine)."`
	Hide      string   `placeholder:"LIST" help:"Mark variables hidden: a comma-separated list of variable indices, applied to every model."`
	Out       string   `required:"" type:"path" help:"Output directory: models.parquet and model_info.parquet."`
}

func (c *factorsCmd) params() samplemodel.FactorParams {
	p := samplemodel.FactorParams{Family: c.Family, Size: c.Size, Count: c.Count, Seed: c.Seed, Hide: c.Hide}
	if c.Family == "potts" {
		p.Potts = samplemodel.PottsParams(c.Size, c.States, c.Treewidth, c.Density)
	}
	return p
}

// Validate makes a size or count out of range, and a potts flag with
// another family, usage errors (exit 2).
func (c *factorsCmd) Validate() error {
	if c.Family != "potts" && (c.States != nil || c.Treewidth != nil || c.Density != nil) {
		return fmt.Errorf("--states, --treewidth and --density are for --family potts, not %s", c.Family)
	}
	return c.params().Check()
}

func (c *factorsCmd) Run() error { return samplemodel.Factors(c.params(), c.Out) }

type exportCmd struct {
	Models []string `required:"" folder:"sample-model: models.parquet model_info.parquet" sep:"none" help:"Directory with models.parquet and model_info.parquet; repeat for several. Model names must be distinct."`
	Out    string   `required:"" type:"path" help:"Output directory: NAME.uai for every model (UAI MARKOV), NAME.uai.evid for a model with evidence (its trailing point-mass factors), and NAME.uai.hidden for a model with hidden variables (UAI has no marker for them: their indices, comma-separated, as --hide takes them; 'sample-model uai --in DIR' reads them back). Other .uai, .evid and .hidden files there are removed."`
}

func (c *exportCmd) Run() error {
	return samplemodel.Export(samplemodel.ExportParams{Models: c.Models}, c.Out)
}

type dataCmd struct {
	Models   string `required:"" type:"path" folder:"sample-model: models.parquet model_info.parquet" help:"Directory with models.parquet and model_info.parquet."`
	Train    int    `default:"4000" help:"Training samples per model."`
	Test     int    `default:"1000" help:"Test samples per model."`
	Seed     int64  `default:"1" help:"Base seed; model k uses a seed derived from it and k."`
	MaxTable int64  `default:"268435456" help:"Largest table (entries) exact sampling may build; >= 1."`
	Out      string `required:"" type:"path" help:"Output directory: samples.parquet."`
}

func (c *dataCmd) params() samplemodel.DataParams {
	return samplemodel.DataParams{Models: c.Models, Train: c.Train, Test: c.Test, Seed: c.Seed, MaxTable: c.MaxTable}
}

// Validate makes bad counts and a table bound below one usage errors (exit 2).
func (c *dataCmd) Validate() error { return c.params().Check() }

func (c *dataCmd) Run() error { return samplemodel.Data(c.params(), c.Out) }

var grammar struct {
	Ising   isingCmd   `cmd:"" help:"Generate Ising models: the paper's (section 5.1) and benchmark families."`
	Factors factorsCmd `cmd:"" help:"Generate UAI-like factor graphs: soft CSPs, noisy-OR networks and pedigrees, with evidence."`
	UAI     uaiCmd     `cmd:"" name:"uai" help:"Import a UAI model with optional evidence, or every UAI model of a directory."`
	Export  exportCmd  `cmd:"" help:"Write models as UAI files (NAME.uai, with NAME.uai.evid for evidence)."`
	Data    dataCmd    `cmd:"" help:"Draw exact train/test samples from every model of a directory."`
}

func main() {
	cli.Main("sample-model", "Make models and data sets for the RENN toolchain.", &grammar)
}

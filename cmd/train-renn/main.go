// Command train-renn runs RENN (or Inference Net) on every model of a
// directory. Run 'train-renn --help' for the flags.
package main

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/renn-go/renn/core/renn"
	"github.com/renn-go/renn/stages/cli"
	"github.com/renn-go/renn/stages/stageio"
	"github.com/renn-go/renn/stages/trainrenn"
)

// The network's flags are the fields of renn.Options (embedded), with
// renn.DefaultOptions as their defaults: one definition of every option.
type root struct {
	Models  string   `required:"" type:"path" folder:"sample-model: models.parquet model_info.parquet" help:"Directory with models.parquet and model_info.parquet."`
	IDs     []string `name:"ids" help:"Model ids to run, comma-separated; ranges LO-HI allowed (0-4). All models when empty."`
	Regions string   `type:"path" folder:"build-regions: regions.parquet" help:"Directory with regions.parquet (from build-regions) for renn. Without it renn builds the --scheme region graph itself; infnet always builds the bethe graph and rejects this flag."`
	Scheme  string   `default:"auto" enum:"auto,bethe,faces,faces+outer,blocks3,star,cycles" help:"Region graph renn builds when --regions is not given (see build-regions --help)."`
	Method  string   `default:"renn-mp" enum:"renn-mp,renn,renn-direct,infnet" help:"renn-mp: RENN with the network that reads the model; renn: with the paper's attention network; renn-direct: with free logits (an ablation); infnet: Inference Net (the paper's network on the Bethe free energy, roots = factors). Every network option not given takes the method's default; the defaults shown are renn-mp's (renn and infnet: --net attention --constraint auglag --max-steps 5000; renn-direct: --net direct, likewise)."`
	Name    string   `help:"Method name written to the outputs; default the name of the network's method: renn, renn-mp or renn-direct (infnet, infnet-mp, infnet-direct for infnet)."`

	renn.Options `embed:""`

	Amortize bool              `help:"Train one family network on every model of --models (all of one graph kind and cardinality) and write OUT/network.parquet, instead of running RENN per model. Takes the --family-* options, not the per-model network options."`
	Family   renn.TrainOptions `embed:"" prefix:"family-" group:"Family network (--amortize)"`
	Weights  string            `type:"path" placeholder:"W" help:"A trained family network (directory with network.parquet, or the file): every model starts from its forward pass (method renn-mp only; models of the family's graph kind, cardinality and region scheme). Method name default renn-family (renn-family-fwd with --refine 0)."`
	Refine   int               `default:"-1" help:"With --weights: cap on the refinement after the forward pass (GBP sweeps and gradient steps alike); 0: the forward pass only; -1: GBP's sweep cap (2000) and --max-steps."`
	RefineBy string            `name:"refine-by" default:"gbp" enum:"gbp,gradient" help:"With --weights: gbp runs GBP's parent-to-child updates (its tolerance) from the forward pass's messages and, when they do not converge, the gradient refinement; gradient runs the per-model RENN loop (Adam on the RENN loss, its usual convergence rule) from the forward pass."`

	Out string `required:"" type:"path" help:"Output directory: marginals.parquet and estimates.parquet (network.parquet with --amortize)."`

	given     map[string]bool // flags given on the command line, by name`
	UAIOut    string          `name:"uai-out" type:"path" placeholder:"DIR" help:"Also write every model's result as UAI competition files: DIR/<method>/<name>.uai.MAR (variable marginals; observed variables as point masses) and DIR/<method>/<name>.uai.PR (log10 Z), <method> being the method name written to the outputs (--name; renn-mp by default) and <name> the model's name without .uai. Each file begins with a comment line saying whether the answer converged, did not (c renn status: NOT CONVERGED: how it stopped; the answer passed the shared check) or failed the shared check (c renn status: FAILED CHECK: the reason; the numbers are then what the method returned, no valid answer), then one naming the run (its --out). A file of another run (another --out) is not replaced without --overwrite (exit 2); a rerun into the same --out replaces its own files and removes those it no longer writes. Written with the Parquet files, all or none."`
	Overwrite bool            `help:"With --uai-out: replace UAI result files written by another run (another --out) or not by these tools, instead of refusing to run (exit 2)."`
}

func (r *root) params() (trainrenn.Params, error) {
	ids, err := stageio.ParseIDs(r.IDs)
	o := r.Options
	o.Name = r.Name
	if o.Name == "" {
		o.Name = trainrenn.DefaultName(r.Method, o.Net)
		if r.Weights != "" {
			o.Name = "renn-family"
			if r.Refine == 0 {
				o.Name = "renn-family-fwd"
			}
		}
	}
	by := ""
	if r.Weights != "" && r.Refine != 0 {
		by = r.RefineBy
	}
	return trainrenn.Params{Models: r.Models, IDs: ids, Regions: r.Regions, Scheme: r.Scheme, Method: r.Method, Options: o,
		UAIOut: r.UAIOut, Overwrite: r.Overwrite, Weights: r.Weights, Refine: r.Refine, RefineBy: by}, err
}

func (r *root) amortizeParams() (trainrenn.AmortizeParams, error) {
	ids, err := stageio.ParseIDs(r.IDs)
	return trainrenn.AmortizeParams{Models: r.Models, IDs: ids, Scheme: r.Scheme, Options: r.Family}, err
}

// Validate makes bad option values and flags that do not go together usage
// errors (exit 2).
func (r *root) Validate() error {
	if err := r.combinations(); err != nil {
		return err
	}
	if r.Amortize {
		p, err := r.amortizeParams()
		if err != nil {
			return err
		}
		return p.Check()
	}
	p, err := r.params()
	if err != nil {
		return err
	}
	return p.Check()
}

// combinations refuses flags that would be ignored: per-model options with
// --amortize, family options without it, --refine without --weights.
func (r *root) combinations() error {
	var per, fam []string
	for name := range r.given {
		switch {
		case strings.HasPrefix(name, "family-"):
			fam = append(fam, "--"+name)
		case networkFlag[name]:
			per = append(per, "--"+name)
		}
	}
	slices.Sort(per)
	slices.Sort(fam)
	switch {
	case r.Amortize && r.Weights != "":
		return errors.New("--amortize trains a family network and --weights runs one: give one of them")
	case r.Amortize && len(per) > 0:
		return fmt.Errorf("%s: per-model network options have no effect with --amortize (its options are --family-*)", strings.Join(per, ", "))
	case r.Amortize && (r.Regions != "" || r.UAIOut != "" || r.Overwrite || r.given["method"] || r.given["name"] || r.given["refine"] || r.given["refine-by"]):
		return errors.New("--amortize takes --models, --ids, --scheme, --family-* and --out only")
	case !r.Amortize && len(fam) > 0:
		return fmt.Errorf("%s: family network options need --amortize", strings.Join(fam, ", "))
	case r.given["refine"] && r.Weights == "":
		return errors.New("--refine needs --weights: refinement starts from a family network")
	case r.given["refine-by"] && r.Weights == "":
		return errors.New("--refine-by needs --weights: refinement starts from a family network")
	case r.given["refine-by"] && r.Refine == 0:
		return errors.New("--refine-by with --refine 0: the forward pass alone has nothing to refine")
	}
	return nil
}

// networkFlag holds the flag names of renn.Options.
var networkFlag = func() map[string]bool {
	m := make(map[string]bool)
	t := reflect.TypeOf(renn.Options{})
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Tag.Get("kong") == "-" {
			continue
		}
		m[strings.ReplaceAll(f.Tag.Get("json"), "_", "-")] = true
	}
	return m
}()

func (r *root) Run(ctx context.Context) error {
	if r.Amortize {
		p, err := r.amortizeParams()
		if err != nil {
			return err
		}
		return trainrenn.Amortize(ctx, p, r.Out)
	}
	p, err := r.params()
	if err != nil {
		return err
	}
	return trainrenn.Run(ctx, p, r.Out)
}

// AfterApply gives every network option not given on the command line the
// default of the chosen method, so --method renn runs the paper's network
// with its own defaults, whatever the defaults shown in --help (renn-mp's).
func (r *root) AfterApply(ctx *kong.Context) error {
	def, err := trainrenn.MethodDefaults(r.Method)
	if err != nil {
		return err
	}
	given := make(map[uintptr]bool)
	r.given = make(map[string]bool)
	for _, p := range ctx.Path {
		if p.Flag != nil {
			r.given[p.Flag.Name] = true
		}
		if p.Flag != nil && p.Flag.Target.CanAddr() {
			given[p.Flag.Target.Addr().Pointer()] = true
		}
	}
	cur, dv := reflect.ValueOf(&r.Options).Elem(), reflect.ValueOf(def)
	for i := range cur.NumField() {
		f := cur.Field(i)
		if cur.Type().Field(i).Tag.Get("kong") == "-" || given[f.Addr().Pointer()] {
			continue
		}
		f.Set(dv.Field(i))
	}
	// Validate ran before the defaults were filled in and before the given
	// flags were known: check again now, still as usage errors.
	return r.Validate()
}

func main() {
	def, err := trainrenn.MethodDefaults(trainrenn.DefaultMethod)
	if err != nil {
		panic(err) // the registry lacks the default method: a programming error
	}
	cli.Main("train-renn", "RENN and Inference Net: region-based free energies minimised by a neural network.",
		&root{Options: def, Family: renn.DefaultTrainOptions()})
}

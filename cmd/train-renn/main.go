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
	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/core/renn"
	"github.com/renn-go/renn/stages/cli"
	"github.com/renn-go/renn/stages/stageio"
	"github.com/renn-go/renn/stages/trainrenn"
)

// The method's options are set as in run-baselines and learn-mrf, with
// --set NAME=VALUE over the chosen method's registry defaults. The fields
// of renn.Options (embedded) declare their aliases: --lambda 3 is --set
// lambda=3 (--max-steps, hidden, is an old name of --max-iter). The
// aliases given are applied in command-line order, then the --set settings
// in theirs; every option not given keeps the method's default.
type root struct {
	Models  string   `required:"" type:"path" folder:"sample-model: models.parquet model_info.parquet" help:"Directory with models.parquet and model_info.parquet."`
	IDs     []string `name:"ids" help:"Model ids to run, comma-separated; ranges LO-HI allowed (0-4). All models when empty."`
	Regions string   `type:"path" folder:"build-regions: regions.parquet" help:"Directory with regions.parquet (from build-regions) for renn. Without it renn builds the --scheme region graph itself; infnet always builds the bethe graph and rejects this flag."`
	Scheme  string   `default:"auto" enum:"auto,bethe,faces,faces+outer,blocks3,star,cycles" help:"Region graph renn builds when --regions is not given (see build-regions --help)."`
	Method  string   `default:"renn-mp" enum:"renn-mp,renn,renn-direct,infnet" help:"renn-mp: RENN with the network that reads the model; renn: with the paper's attention network; renn-direct: with free logits (an ablation); infnet: Inference Net (the paper's network on the Bethe free energy, roots = factors). Every network option not given takes the method's default; the defaults shown are renn-mp's (renn and infnet: --net attention --constraint auglag --max-iter 5000; renn-direct: --net direct, likewise; every method's defaults are listed below)."`
	Name    string   `help:"Method name written to the outputs; default the name of the network's method: renn, renn-mp or renn-direct (infnet, infnet-mp, infnet-direct for infnet)."`

	Set          []string `name:"set" placeholder:"[METHOD.]NAME=VALUE" help:"Set an option of the method (repeatable), as in run-baselines and learn-mrf; the options and their defaults per method are listed below. The network flags are aliases: --NAME VALUE is --set NAME=VALUE (with - for _), applied before --set. Every value is honoured or rejected."`
	renn.Options `embed:"" group:"Method options: aliases of --set NAME=VALUE (defaults shown are renn-mp's)"`
	MaxSteps     int `name:"max-steps" hidden:"" help:"Alias of --max-iter."`

	Amortize bool              `help:"Train one family network on every model of --models (all of one graph kind and cardinality) and write OUT/network.parquet, instead of running RENN per model. Takes the --family-* options, not the per-model network options."`
	Family   renn.TrainOptions `embed:"" prefix:"family-" group:"Family network (--amortize)"`
	Weights  string            `type:"path" placeholder:"W" help:"A trained family network (directory with network.parquet, or the file): every model starts from its forward pass (method renn-mp only; models of the family's graph kind, cardinality and region scheme). Method name default renn-family (renn-family-fwd with --refine 0)."`
	Refine   int               `default:"-1" help:"With --weights: cap on the refinement after the forward pass (GBP sweeps and gradient steps alike); 0: the forward pass only; -1: GBP's sweep cap (2000) and max_iter."`
	RefineBy string            `name:"refine-by" default:"gbp" enum:"gbp,gradient" help:"With --weights: gbp runs GBP's parent-to-child updates (its tolerance) from the forward pass's messages and, when they do not converge, the gradient refinement; gradient runs the per-model RENN loop (Adam on the RENN loss, its usual convergence rule) from the forward pass."`

	Out string `required:"" type:"path" help:"Output directory: marginals.parquet and estimates.parquet (network.parquet with --amortize)."`

	given     map[string]bool // flags given on the command line, by name
	aliases   []string        // the method options given as flags, as NAME=VALUE
	UAIOut    string          `name:"uai-out" type:"path" placeholder:"DIR" help:"Also write every model's result as UAI competition files: DIR/<method>/<name>.uai.MAR (variable marginals; observed variables as point masses) and DIR/<method>/<name>.uai.PR (log10 Z), <method> being the method name written to the outputs (--name; renn-mp by default) and <name> the model's name without .uai. Each file begins with a comment line saying whether the answer converged, did not (c renn status: NOT CONVERGED: how it stopped; the answer passed the shared check) or failed the shared check (c renn status: FAILED CHECK: the reason; the numbers are then what the method returned, no valid answer), then one naming the run (its --out). A file of another run (another --out) is not replaced without --overwrite (exit 2); a rerun into the same --out replaces its own files and removes those it no longer writes. Written with the Parquet files, all or none."`
	Overwrite bool            `help:"With --uai-out: replace UAI result files written by another run (another --out) or not by these tools, instead of refusing to run (exit 2)."`
}

func (r *root) params() (trainrenn.Params, error) {
	ids, err := stageio.ParseIDs(r.IDs)
	if err != nil {
		return trainrenn.Params{}, err
	}
	o, set, err := trainrenn.MethodOptions(r.Method, append(slices.Clone(r.aliases), r.Set...))
	if err != nil {
		return trainrenn.Params{}, err
	}
	switch {
	case r.Name != "":
		o.Name = r.Name
	case set["name"]:
	case r.Weights != "" && r.Refine == 0:
		o.Name = "renn-family-fwd"
	case r.Weights != "":
		o.Name = "renn-family"
	default:
		o.Name = trainrenn.DefaultName(r.Method, o.Net)
	}
	by := ""
	if r.Weights != "" && r.Refine != 0 {
		by = r.RefineBy
	}
	return trainrenn.Params{Models: r.Models, IDs: ids, Regions: r.Regions, Scheme: r.Scheme, Method: r.Method, Options: o,
		UAIOut: r.UAIOut, Overwrite: r.Overwrite, Weights: r.Weights, Refine: r.Refine, RefineBy: by}, nil
}

func (r *root) amortizeParams() (trainrenn.AmortizeParams, error) {
	ids, err := stageio.ParseIDs(r.IDs)
	return trainrenn.AmortizeParams{Models: r.Models, IDs: ids, Scheme: r.Scheme, Options: r.Family}, err
}

// Validate makes bad option values and flags that do not go together usage
// errors (exit 2). It reads which flags were given (aliases of the method's
// options among them); the options are checked once, by the stage's Check.
func (r *root) Validate(kctx *kong.Context) error {
	r.given = make(map[string]bool)
	for _, p := range kctx.Path {
		if p.Flag != nil {
			r.given[p.Flag.Name] = true
		}
	}
	r.aliases = cli.Aliases(kctx, &r.Options)
	if r.given["max-steps"] {
		r.aliases = append(r.aliases, fmt.Sprintf("max_iter=%d", r.MaxSteps))
	}
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
		case networkFlag[name] != "" || name == "max-steps" || name == "set":
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

// networkFlag maps the flags of renn.Options, the aliases of the method's
// options, to the options' names (--max-iter to max_iter).
var networkFlag = func() map[string]string {
	m := make(map[string]string)
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			switch {
			case f.Tag.Get("kong") == "-":
			case f.Anonymous && f.Type.Kind() == reflect.Struct:
				walk(f.Type) // the shared options (infer.Iteration)
			default:
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				m[strings.ReplaceAll(name, "_", "-")] = name
			}
		}
	}
	walk(reflect.TypeOf(renn.Options{}))
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

func main() {
	def, err := trainrenn.MethodDefaults(trainrenn.DefaultMethod)
	if err != nil {
		panic(err) // the registry lacks the default method: a programming error
	}
	cli.Main("train-renn", "RENN and Inference Net: region-based free energies minimised by a neural network.\n\n"+
		"Methods and their options (NAME=DEFAULT), set with --set NAME=VALUE or their flags:\n\n"+methods.Usage(false, trainrenn.Methods()...),
		&root{Options: def, Family: renn.DefaultTrainOptions()})
}

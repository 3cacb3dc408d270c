// Command train-renn runs RENN (or Inference Net) on every model of a
// directory. Run 'train-renn --help' for the flags.
package main

import (
	"context"
	"os"
	"os/signal"
	"reflect"

	"github.com/alecthomas/kong"
	"github.com/renn-go/renn/core/renn"
	"github.com/renn-go/renn/stages/cli"
	"github.com/renn-go/renn/stages/stageio"
	"github.com/renn-go/renn/stages/trainrenn"
)

// The network's flags are the fields of renn.Options (embedded), with
// renn.DefaultOptions as their defaults: one definition of every option.
type root struct {
	Models  string   `required:"" type:"existingdir" help:"Directory with models.parquet and model_info.parquet."`
	IDs     []string `name:"ids" help:"Model ids to run, comma-separated; ranges LO-HI allowed (0-4). All models when empty."`
	Regions string   `type:"existingdir" help:"Directory with regions.parquet (from build-regions) for renn. Without it renn builds the --scheme region graph itself; infnet always builds the bethe graph and rejects this flag."`
	Scheme  string   `default:"auto" enum:"auto,bethe,faces,faces+outer,star,cycles" help:"Region graph renn builds when --regions is not given (see build-regions --help)."`
	Method  string   `default:"renn-mp" enum:"renn-mp,renn,renn-direct,infnet" help:"renn-mp: RENN with the network that reads the model; renn: with the paper's attention network; renn-direct: with free logits (an ablation); infnet: Inference Net (the paper's network on the Bethe free energy, roots = factors). Every network option not given takes the method's default; the defaults shown are renn-mp's (renn and infnet: --net attention --constraint auglag --max-steps 5000; renn-direct: --net direct, likewise)."`
	Name    string   `help:"Method name written to the outputs; default the name of the network's method: renn, renn-mp or renn-direct (infnet, infnet-mp, infnet-direct for infnet)."`

	renn.Options `embed:""`

	Out    string `required:"" type:"path" help:"Output directory: marginals.parquet and estimates.parquet."`
	UAIOut string `name:"uai-out" type:"path" placeholder:"DIR" help:"Also write every model's result as UAI competition files into DIR: <name>.uai.MAR (variable marginals; observed variables as point masses) and <name>.uai.PR (log10 Z), <name> being the model's name without .uai. Written with the Parquet files, all or none."`
}

func (r *root) params() (trainrenn.Params, error) {
	ids, err := stageio.ParseIDs(r.IDs)
	o := r.Options
	o.Name = r.Name
	if o.Name == "" {
		o.Name = trainrenn.DefaultName(r.Method, o.Net)
	}
	return trainrenn.Params{Models: r.Models, IDs: ids, Regions: r.Regions, Scheme: r.Scheme, Method: r.Method, Options: o, UAIOut: r.UAIOut}, err
}

// Validate makes bad option values usage errors (exit 2).
func (r *root) Validate() error {
	p, err := r.params()
	if err != nil {
		return err
	}
	return p.Check()
}

func (r *root) Run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
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
	for _, p := range ctx.Path {
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
	return nil
}

func main() {
	def, err := trainrenn.MethodDefaults(trainrenn.DefaultMethod)
	if err != nil {
		panic(err) // the registry lacks the default method: a programming error
	}
	cli.Main("train-renn", "RENN and Inference Net: region-based free energies minimised by a neural network.",
		&root{Options: def})
}

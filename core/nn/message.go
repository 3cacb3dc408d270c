package nn

import (
	"errors"
	"fmt"
	"math"
)

// Link ties root Root to one of its child regions, Child: Map[x] is the
// child's state when the root is in joint state x.
type Link struct {
	Root, Child int
	Map         []int32
}

// MessageConfig configures NewMessageNet.
type MessageConfig struct {
	// Features is the number of input feature tables per root that
	// SetInputs takes, each over the root's joint states.
	Features int
}

// maxMessageEntries bounds the total size of a MessageNet's tables (logits,
// messages and features), 8 bytes each.
const maxMessageEntries = 1 << 28

// MessageNet is a network that reads the model. The logits of root R are
//
//	logit_R(x_R) = −v·E_R(x_R) + Σ_k w_k G_k(x_R) + Σ_{C child of R} a_{R→C}(x_C)
//
// E_R is the root's energy and G_k its input features, both given by
// SetInputs, so the first forward pass already gives each root a
// distribution made from the model. The weights v and w (shared by every
// root; all 1 at the start, see SetWeights) and the messages a (one per link
// and child state; 0 at the start) are the parameters. A message a_{R→C} is a
// function of the child's states only, as the messages of generalized belief
// propagation are, so the net has far fewer parameters than a free logit
// per root state.
//
// The cost of a forward or backward pass is linear in the size of the root
// and link tables. A root with an energy of +Inf in a state gets a logit of
// −Inf there (probability 0).
type MessageNet struct {
	cfg         MessageConfig
	rootStates  []int
	childStates []int
	links       []Link
	byRoot      [][]int // links of each root
	byChild     [][]int // links of each child

	base  [][]float64   // −E_R per root, 0 where E_R = +Inf
	excl  [][]int       // per root, the states of energy +Inf
	feat  [][][]float64 // feat[k][r]: feature k of root r
	phi   [][]float64   // per link, the current message
	dphi  [][]float64   // per link, d loss/d message of the last Backward
	a, w  *Param
	v     *Param // the energy weight
	aOff  []int  // offset of each link in a
	out   [][]float64
	ready bool
}

// NewMessageNet returns a MessageNet for roots with rootStates joint states,
// children with childStates joint states, and the links between them. Every
// link's Map must have one entry per root state, each a valid child state.
func NewMessageNet(rootStates, childStates []int, links []Link, cfg MessageConfig) (*MessageNet, error) {
	if len(rootStates) == 0 {
		return nil, errors.New("message net: no root regions")
	}
	if cfg.Features < 0 || cfg.Features > 16 {
		return nil, fmt.Errorf("message net: %d features per root, want 0..16", cfg.Features)
	}
	n := &MessageNet{cfg: cfg, rootStates: rootStates, childStates: childStates, links: links,
		byRoot: make([][]int, len(rootStates)), byChild: make([][]int, len(childStates)), aOff: make([]int, len(links))}
	total := 0
	for _, s := range rootStates {
		if s < 1 {
			return nil, fmt.Errorf("message net: a root has %d states", s)
		}
		total += s
	}
	msgs := 0
	for l, lk := range links {
		if lk.Root < 0 || lk.Root >= len(rootStates) || lk.Child < 0 || lk.Child >= len(childStates) {
			return nil, fmt.Errorf("message net: link %d joins root %d and child %d, out of range", l, lk.Root, lk.Child)
		}
		if len(lk.Map) != rootStates[lk.Root] {
			return nil, fmt.Errorf("message net: link %d maps %d root states, the root has %d", l, len(lk.Map), rootStates[lk.Root])
		}
		cs := childStates[lk.Child]
		for _, c := range lk.Map {
			if c < 0 || int(c) >= cs {
				return nil, fmt.Errorf("message net: link %d maps to child state %d of %d", l, c, cs)
			}
		}
		n.aOff[l] = msgs
		msgs += cs
		n.byRoot[lk.Root] = append(n.byRoot[lk.Root], l)
		n.byChild[lk.Child] = append(n.byChild[lk.Child], l)
	}
	if size := (cfg.Features+2)*total + 3*msgs; size > maxMessageEntries {
		return nil, fmt.Errorf("message net: %d table entries, more than %d", size, maxMessageEntries)
	}
	n.a = newParam("messages", msgs)
	n.w = newParam("feature_weights", cfg.Features)
	for k := range n.w.Value {
		n.w.Value[k] = 1
	}
	n.v = newParam("energy_weight", 1)
	n.v.Value[0] = 1
	n.base = tables(rootStates)
	n.excl = make([][]int, len(rootStates))
	n.out = tables(rootStates)
	n.phi = tables(n.linkSizes())
	n.dphi = tables(n.linkSizes())
	n.feat = make([][][]float64, cfg.Features)
	for k := range n.feat {
		n.feat[k] = tables(rootStates)
	}
	return n, nil
}

func tables(sizes []int) [][]float64 {
	t := make([][]float64, len(sizes))
	for i, s := range sizes {
		t[i] = make([]float64, s)
	}
	return t
}

// SetInputs reads a model: E[r] is the energy table of root r (+Inf for a
// state of zero potential) and G[k][r] its feature k, finite wherever the
// energy is.
func (n *MessageNet) SetInputs(E [][]float64, G [][][]float64) error {
	if len(E) != len(n.rootStates) || len(G) != len(n.feat) {
		return fmt.Errorf("message net: %d energy tables and %d features for %d roots and %d features", len(E), len(G), len(n.rootStates), len(n.feat))
	}
	for r, e := range E {
		if len(e) != n.rootStates[r] {
			return fmt.Errorf("message net: root %d has an energy table of %d entries, want %d", r, len(e), n.rootStates[r])
		}
		for x, v := range e {
			if math.IsNaN(v) || math.IsInf(v, -1) {
				return fmt.Errorf("message net: root %d state %d has energy %v", r, x, v)
			}
		}
	}
	for r, e := range E {
		n.excl[r] = n.excl[r][:0]
		for x, v := range e {
			if math.IsInf(v, 1) {
				n.base[r][x] = 0
				n.excl[r] = append(n.excl[r], x)
			} else {
				n.base[r][x] = -v
			}
		}
		if len(n.excl[r]) == len(e) {
			return fmt.Errorf("message net: root %d has zero potential in every state", r)
		}
	}
	for k, g := range G {
		if len(g) != len(n.rootStates) {
			return fmt.Errorf("message net: feature %d has %d tables for %d roots", k, len(g), len(n.rootStates))
		}
		for r, t := range g {
			if len(t) != n.rootStates[r] {
				return fmt.Errorf("message net: feature %d of root %d has %d entries, want %d", k, r, len(t), n.rootStates[r])
			}
			for x, v := range t {
				if math.IsInf(E[r][x], 1) {
					v = 0 // the state is excluded whatever the feature says
				} else if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("message net: feature %d of root %d state %d is %v", k, r, x, v)
				}
				n.feat[k][r][x] = v
			}
		}
	}
	n.ready = true
	return nil
}

// Features returns the features the last SetInputs set: Features()[k][r] is
// feature k of root r. The tables are the net's own; passing them back to
// SetInputs with new energies keeps them.
func (n *MessageNet) Features() [][][]float64 { return n.feat }

func (n *MessageNet) linkSizes() []int {
	s := make([]int, len(n.links))
	for l, lk := range n.links {
		s[l] = n.childStates[lk.Child]
	}
	return s
}

// logits fills n.out with the weighted energies and features plus the
// given messages; excluded states get −Inf.
func (n *MessageNet) logits(phi [][]float64) {
	ve := n.v.Value[0]
	for r, b := range n.base {
		o := n.out[r]
		for x, v := range b {
			o[x] = ve * v
		}
		for k, f := range n.feat {
			w := n.w.Value[k]
			for x, v := range f[r] {
				o[x] += w * v
			}
		}
		for _, l := range n.byRoot[r] {
			p, mp := phi[l], n.links[l].Map
			for x := range o {
				o[x] += p[mp[x]]
			}
		}
		for _, x := range n.excl[r] {
			o[x] = math.Inf(-1)
		}
	}
}

// Forward returns the logits of every root. SetEnergies must have been
// called.
func (n *MessageNet) Forward() [][]float64 {
	if !n.ready {
		panic("nn: MessageNet.Forward before SetInputs")
	}
	for l, p := range n.phi {
		copy(p, n.a.Value[n.aOff[l]:n.aOff[l]+len(p)])
	}
	n.logits(n.phi)
	return n.out
}

// Backward adds the gradients of a and w given d loss/d logits.
func (n *MessageNet) Backward(dLogits [][]float64) {
	checkGrads(n.out, dLogits)
	for l, lk := range n.links {
		g := n.dphi[l]
		clear(g)
		d := dLogits[lk.Root]
		for x, c := range lk.Map {
			g[c] += d[x]
		}
		ga := n.a.Grad[n.aOff[l] : n.aOff[l]+len(g)]
		for x, v := range g {
			ga[x] += v
		}
	}
	for k, f := range n.feat {
		n.w.Grad[k] += n.dot(f, dLogits)
	}
	n.v.Grad[0] += n.dot(n.base, dLogits)
}

// dot returns Σ_r Σ_x t[r][x]·d[r][x] over the states not excluded.
func (n *MessageNet) dot(t, d [][]float64) float64 {
	s := 0.0
	for r, tr := range t {
		dr := d[r]
		for x, v := range tr {
			s += v * dr[x]
		}
		for _, x := range n.excl[r] {
			s -= tr[x] * dr[x]
		}
	}
	return s
}

// SetWeights sets the energy weight and the feature weights, the net's
// starting point: (1, all 1) reads the model as given; (0, all 0) starts
// from uniform beliefs with the messages alone.
func (n *MessageNet) SetWeights(energy float64, features []float64) error {
	if len(features) != len(n.w.Value) {
		return fmt.Errorf("message net: %d feature weights for %d features", len(features), len(n.w.Value))
	}
	n.v.Value[0] = energy
	copy(n.w.Value, features)
	return nil
}

// Params returns the messages and the feature weights.
func (n *MessageNet) Params() []*Param { return []*Param{n.a, n.w, n.v} }

// ZeroGrad sets every gradient to zero.
func (n *MessageNet) ZeroGrad() { zeroGrad(n.Params()) }

// Package exact computes the exact partition function, variable marginals and
// factor marginals of a discrete Markov random field, and draws exact samples
// from it. It is the ground truth against which every approximate method of
// the project is scored.
//
// The algorithm is variable elimination along an order chosen by MakePlan,
// followed by a downward (Shafer-Shenoy) pass over the elimination tree, which
// is the junction tree whose cliques are the elimination cliques. Tables are
// kept in "scaled linear" space: float64 values whose maximum is 1 plus one
// float64 log-scale per table, so products and sums are plain arithmetic while
// log Z may exceed thousands. The one limit of this representation: within a
// single table, entries smaller than about 1e-280 times the table's largest
// entry are flushed to zero (float64 underflow, with a margin for tables that
// are left unnormalised when their maximum is within 2^±20 of 1). Log-potentials
// of -Inf become exact zeros.
//
// Forward messages are stored while they fit in Options.Memory; beyond that
// only checkpoints are kept and the backward pass recomputes the forward
// steps it needs from the nearest checkpoint, recursively on the elimination
// order, so that memory stays within the budget at the price of extra forward
// work (about one extra forward pass when the budget holds a few dozen
// messages).
package exact

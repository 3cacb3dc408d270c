// Package region builds region graphs of discrete MRFs and evaluates the
// region-based free energy on them (paper, sections 2 and 3.2, appendices C
// and E).
//
// A region is a set of variables together with every model factor whose scope
// lies inside it. A Graph holds the regions level by level (roots first) with
// parent/child edges and counting numbers c_R = 1 - Σ_{ancestors} c_A. Build
// chooses the root regions by a named scheme and FromRoots completes any root
// set by the cluster variation method:
//
//	bethe        one root per factor scope of arity >= 2 (plus singleton roots
//	             for variables in no such factor); on pairwise models the
//	             lower level is the single variables with c_i = 1 - d_i, which
//	             is the Bethe free energy (paper eq. 2, appendix C).
//	faces        every 2x2 plaquette of an L x L grid (also with wrap-around
//	             on a torus).
//	faces+outer  faces plus the infinite face (all perimeter nodes of an open
//	             grid).
//	blocks3      every 3x3 window (stride 1) of an L x L grid or torus:
//	             Kikuchi's larger clusters (512 joint states per binary root),
//	             whose free energy is far closer to ln Z on strongly coupled
//	             grids. Its closure holds regions of counting number 0 (3x1
//	             strips, pairs, single nodes); they are dropped (see below).
//	star         triangles {0,i,j} of a complete graph (hub node 0).
//	cycles       the paper's Algorithm 1 on the pairwise interaction graph,
//	             admitting only cycles within Bounds (default 6 variables,
//	             4096 joint states); higher-order factors are roots of their
//	             own. See RootSetsBounded for exactly what it does.
//	auto         faces for grid and torus (also a lattice detected in a
//	             model of any graph type), star for complete (also detected),
//	             else bounded cycles; Graph.Detail says what it picked.
//
// BuildBounded takes explicit Bounds: they shape cycles and auto, and refuse
// (with a *BoundError) faces, faces+outer, blocks3 and star roots over them; bethe is
// never refused. Build keeps the behaviour existing callers rely on:
// DefaultBounds for cycles and auto, no bound for the explicit schemes.
//
// # Cluster variation method
//
// The paper builds level l from the distinct pairwise intersections of level
// l-1, drops any intersection that is a subset of another one of the same
// level, and joins each region to the regions of the level just above that
// contain it. Taken literally this can lose an intersection or an ancestor
// and then the graph is not valid. Example: roots A={1,2,3}, B={1,2,4},
// Q={1,5}; level 1 is {1,2} only ({1} is dropped as a subset of {1,2}), and
// variable 1 is counted c_A+c_B+c_Q+c_{12} = 2 times.
//
// FromRoots therefore takes every non-empty intersection of root regions
// (the closure of the roots under intersection), places each region at the
// level of the longest chain of strict supersets above it, and gives it as
// parents its minimal strict supersets. Counting numbers are then
// c_R = 1 - Σ_{S ⊋ R} c_S, and every strict superset is an ancestor. With
// this, Σ_R c_R [x ⊆ R] = 1 for every variable and factor scope x that some
// root contains (the regions containing x are exactly those containing the
// smallest one among them). Whenever the literal rule keeps every
// intersection and every superset is reached through its edges, which holds
// for faces, star and bethe on pairwise models, both constructions give the
// same regions, levels, edges and counting numbers.
//
// Regions of counting number 0 add nothing to the free energy, but they
// deepen the graph: on the full closure of the 3x3 windows (five levels)
// parent-to-child GBP overflowed within a few sweeps even on weakly coupled
// 5x5 grids. blocks3 therefore drops them (dropZeroCounting): every kept
// region's parents become its minimal strict supersets among the kept ones,
// leaving three levels (windows; 2x3 and 3x2 overlaps, c = -1; 2x2
// overlaps, c = 1) with the same counting numbers, on which GBP converges.
// The other schemes keep the full closure (faces, star and bethe on
// pairwise models have no region of counting number 0).
//
// # Free energy
//
// Region tables live on a Binding: Graph.Bind checks a region graph against
// the structure of a model (cardinalities and factor scopes) once, and counts
// every region's joint states, refusing regions over MaxStates (faces+outer
// on a large grid, cycles on large graphs). Its methods then allocate and
// evaluate tables for every model of that structure without checking the
// graph again.
//
// Beliefs are one table per region, row-major over Region.Vars with the last
// variable fastest (the layout of mrf.Factor tables). FreeEnergy computes
// F_R(B) = Σ_R c_R Σ_x b_R(x) (E_R(x) + ln b_R(x)); Penalty computes the RENN
// consistency term Σ_{R ∉ R0} Σ_{P ∈ parents(R)} ||b_R - Σ_{P\R} b_P||².
package region

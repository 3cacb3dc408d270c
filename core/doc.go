// Package core is the root of the mathematics of the project: models, exact
// inference, region graphs, free energies, message passing, the neural network,
// learning and metrics. Nothing under core reads or writes files.
package core

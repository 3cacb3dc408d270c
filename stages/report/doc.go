// Package report writes REPORT.md and its sections from the outputs of a
// pipeline, every table and claim declared as data: the RENN paper's
// tables next to ours, the sections beyond the paper, and the sections
// written on their own (report --scale, --amortized, --anymodel).
//
// What the report shows is declared, not programmed. Each section is a
// file sections/<name>.toml: the stages it reads (parts, by name pattern),
// what it reads of them (reads: scores model by model, summaries,
// learning curves, costs, or the paper's tables), its tables (rows as
// axes of metrics, settings, models and methods; columns per method; each
// cell a template of aggregated facts and a number format), its claims,
// figures and text (a Go text/template), and whether it reads a pipeline
// config of its own (own_config), given by the section's name (report
// --<name> CONFIG on its own, --with-<name> CONFIG in REPORT.md).
// sections/paper.toml is the paper's part, and lists the sections that
// follow its tables in REPORT.md: its tables are transcribed in
// paper.toml with the stages our numbers come from, its discussion is
// prose whose counts are claims over those tables filled with our
// numbers. sections/report.tmpl is REPORT.md's frame.
//
// One table builder renders every table (pivot.go over grid.go), the
// paper's too; one rule engine evaluates every claim (rules.go), counted
// as "holds on k of n". Method names come from the registry (core/methods)
// or the declarations. Stage outputs are read into facts by
// stages/stageio/outputs, which also aggregates them and records what the
// readers derive (comparisons of two methods' answers, budgets, costs, the
// learning tables' rows, the settings' order); the run time and
// staleness come from the runner (plan.go, the package's one view of
// stages/pipeline). A computation no declaration can express is a metric
// of core/metrics, recorded by the readers.
//
// A new results section is a declaration plus, at most, a metric. Stages
// that have not run show as "not run", so a report can be written at any
// point of a long run.
package report

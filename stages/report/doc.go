// Package report writes REPORT.md, the README's cost-against-size tables
// (report --scale) and the amortized section (report --amortized) from the
// outputs of a pipeline, every table and claim declared as data.
//
// What the report shows is declared, not programmed:
//
//   - paper.toml transcribes the RENN paper's tables (rows, columns, the
//     paper's numbers) with the stages our numbers come from, and the
//     plots; discussion.toml is the discussion, its prose a
//     template whose counts are claims over the filled tables.
//   - sections/<name>.toml declares each section beyond the paper (hard,
//     uai, amortized, hidden, anymodel) and the scale tables: the stages it reads
//     (by name pattern), what it reads of them (scores model by model,
//     summaries, learning curves, costs), its tables (rows as axes of
//     metrics, settings, models and methods; columns per method; each cell
//     a template of aggregated facts and a number format), its claims and
//     figures, and its text, a Go text/template.
//   - every claim, a section's or the discussion's, is a rule of the one
//     rule engine (rules.go), declared as [[claim]]: rows (settings,
//     models, the paper's table rows, a learning part's settings) and a
//     test counted as "holds on k of n".
//   - sections/report.tmpl is REPORT.md's frame: machine, run time,
//     contents, tables, sections, plots.
//
// One table builder renders every table (pivot.go over grid.go): the
// paper's too, each declared from paper.toml (paper_table.go: the paper's
// rows listed, a column per paper column reading its stage, the paper's
// numbers read as facts of a part of their own, written below ours). Method names come from the
// registry (core/methods): column titles, logz bound kinds, summaries,
// display order. Computations no declaration can express live in core
// (core/metrics: Bethe stationarity, seed-paired learning gaps, PCD at
// another method's wall time, a longer budget against the better rival,
// growth exponents, belief distances, cost per iteration and per step,
// marginals and answers against a reference's; core/mrf: model shape). Stage outputs are read by stages/stageio/outputs
// into facts (outputs.Reader: scores model by model, summaries by
// setting, learning curves, costs) and the run time from the stamps by the
// runner (pipeline.Plan.RunTime); the report joins the declarations with
// those facts. The runner is reached through plan.go alone.
//
// A new results section is a declaration: in_report (its place in
// REPORT.md after the paper's tables), parts (its stages), reads, and
// tables whose cells name facts of the stages' outputs; a fact no stage
// writes is a metric, added to core/metrics and to what the readers
// record. Stages that have not run show as "not run", so a report can be
// written at any point of a long run.
package report

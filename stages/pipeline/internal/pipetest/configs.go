package pipetest

// Chain: a -> b -> c, a -> d, and e on its own, every stage running
// fakestage and recording its run in the run log.
const Chain = `
# test pipeline
[stage.a]
run = ["fakestage", "gen"]
flags = { value = "a", log = "LOG" }
untracked = ["log"]

[stage.b]
run = ["fakestage"]
flags = { value = "b", log = "LOG" }
untracked = ["log"]
inputs = { in = "a" }

[stage.c]
run = ["fakestage"]
flags = { value = "c", log = "LOG" }
untracked = ["log"]
inputs = { in = "b" }

[stage.d]
run = ["fakestage"]
flags = { value = "d", log = "LOG" }
untracked = ["log"]
inputs = { in = "a" }

[stage.e]
run = ["fakestage"]
flags = { value = "e", log = "LOG" }
untracked = ["log"]
`

// ChainIDs returns the stages, and instances, of Chain.
func ChainIDs() []string { return []string{"a", "b", "c", "d", "e"} }

// Sharded fans models out over size and gamma; exact and pair follow
// its shards and score gathers them.
const Sharded = `
[stage.models]
run = ["fakestage", "ising"]
flags = { graph = "grid", log = "LOG" }
untracked = ["log"]
[stage.models.shard]
size = [3, 5]
gamma = [0.1, 1.0]

[stage.exact]          # one instance per models shard
run = ["fakestage"]
flags = { log = "LOG" }
untracked = ["log"]
inputs = { in = "models" }

[stage.pair]           # two sharded inputs, matched on size and gamma
run = ["fakestage"]
flags = { log = "LOG" }
untracked = ["log"]
inputs = { in = "models", more = "exact" }

[stage.score]          # gathers every shard
run = ["fakestage"]
flags = { log = "LOG" }
untracked = ["log"]
inputs = { in = ["exact"] }
`

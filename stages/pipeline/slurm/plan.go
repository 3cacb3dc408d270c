package slurm

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/config"
)

// submission is one sbatch call: a single job, or a job array of instances
// of one stage.
type submission struct {
	stage *config.Stage
	insts []*pipeline.Instance
	tasks []int // array task ID of each instance; nil for a single job
	force []bool

	after      []int     // afterok on the whole of these earlier submissions
	afterTasks []taskRef // afterok on single tasks of earlier arrays
	corr       []int     // aftercorr: task i waits for task i of these arrays
}

// taskRef is one instance in the submissions: which one, and which task of
// its array (-1 for a single job).
type taskRef struct {
	sub, task int
}

// jobRef renders the Slurm job ID of an instance given the job IDs of the
// submissions: "123" or, for a task of an array, "123_4".
func (t taskRef) jobRef(ids []string) string {
	if t.task < 0 {
		return ids[t.sub]
	}
	return ids[t.sub] + "_" + strconv.Itoa(t.task)
}

// planSubmissions groups the instances to run (in plan order) into sbatch
// calls, in an order where every dependency is submitted first. A stage
// with several instances in the plan is an array whose task IDs are the
// instances' positions among the stage's instances, so that the tasks of
// two sharded stages correspond shard by shard. Instances that are not in
// runs (up to date) are not waited for.
func planSubmissions(p *pipeline.Plan, runs []*pipeline.Instance, forced map[*pipeline.Instance]bool) []*submission {
	sp := &submissionPlanner{forced: forced, index: map[*pipeline.Instance]int{}, count: map[*config.Stage]int{},
		where: map[*pipeline.Instance]taskRef{}}
	for _, inst := range p.Instances {
		sp.index[inst] = sp.count[inst.Stage]
		sp.count[inst.Stage]++
	}
	for i := 0; i < len(runs); {
		j := i
		for j < len(runs) && runs[j].Stage == runs[i].Stage {
			j++
		}
		sp.addStage(runs[i:j])
		i = j
	}
	return sp.subs
}

// submissionPlanner holds the submissions planned so far.
type submissionPlanner struct {
	forced map[*pipeline.Instance]bool
	index  map[*pipeline.Instance]int // an instance's position among its stage's: its array task
	count  map[*config.Stage]int      // instances of a stage in the plan
	subs   []*submission
	where  map[*pipeline.Instance]taskRef // the submission and task of each instance planned
}

// addStage plans the instances of one stage: one array (or job) if one
// sbatch call can say what they wait for, else one per set of
// dependencies.
func (sp *submissionPlanner) addStage(group []*pipeline.Instance) {
	deps := make([][]taskRef, len(group))
	all := make([]int, len(group))
	for k, inst := range group {
		deps[k] = sp.depsOf(inst)
		all[k] = k
	}
	if s, d := sp.newSub(group, deps, all); s.setDeps(sp.subs, d) {
		sp.add(s)
		return
	}
	var keys []string
	parts := map[string][]int{}
	for k, d := range deps {
		key := fmt.Sprint(d)
		if _, ok := parts[key]; !ok {
			keys = append(keys, key)
		}
		parts[key] = append(parts[key], k)
	}
	for _, key := range keys {
		s, d := sp.newSub(group, deps, parts[key])
		s.setDeps(sp.subs, d) // equal dependencies: always expressible
		sp.add(s)
	}
}

// newSub makes the submission of the members of group, and returns it with
// their dependencies.
func (sp *submissionPlanner) newSub(group []*pipeline.Instance, deps [][]taskRef, members []int) (*submission, [][]taskRef) {
	stage := group[0].Stage
	s := &submission{stage: stage}
	var d [][]taskRef
	for _, k := range members {
		d = append(d, deps[k])
		s.insts = append(s.insts, group[k])
		s.force = append(s.force, sp.forced[group[k]])
		if sp.count[stage] > 1 {
			s.tasks = append(s.tasks, sp.index[group[k]])
		}
	}
	return s, d
}

func (sp *submissionPlanner) add(s *submission) {
	for i, inst := range s.insts {
		t := -1
		if s.tasks != nil {
			t = s.tasks[i]
		}
		sp.where[inst] = taskRef{len(sp.subs), t}
	}
	sp.subs = append(sp.subs, s)
}

// depsOf lists what an instance waits for: its upstream instances that are
// submitted too, as sorted references.
func (sp *submissionPlanner) depsOf(inst *pipeline.Instance) []taskRef {
	var refs []taskRef
	for _, d := range inst.Deps {
		if t, ok := sp.where[d]; ok {
			refs = append(refs, t)
		}
	}
	slices.SortFunc(refs, func(a, b taskRef) int {
		if a.sub != b.sub {
			return a.sub - b.sub
		}
		return a.task - b.task
	})
	return slices.Compact(refs)
}

// setDeps expresses the dependencies of s (deps[k] those of s.insts[k])
// with afterok and aftercorr. It reports false if one sbatch call cannot
// say them; it never does when all instances have equal dependencies.
func (s *submission) setDeps(subs []*submission, deps [][]taskRef) bool {
	var ups []int
	for _, d := range deps {
		for _, t := range d {
			if !slices.Contains(ups, t.sub) {
				ups = append(ups, t.sub)
			}
		}
	}
	slices.Sort(ups)
	s.after, s.afterTasks, s.corr = nil, nil, nil
	for _, u := range ups {
		tasksOf := func(k int) []int {
			var ts []int
			for _, t := range deps[k] {
				if t.sub == u {
					ts = append(ts, t.task)
				}
			}
			return ts
		}
		first := tasksOf(0)
		same := true
		for k := 1; k < len(deps) && same; k++ {
			same = slices.Equal(tasksOf(k), first)
		}
		up := subs[u]
		switch {
		case same && (up.tasks == nil || len(first) == len(up.tasks)):
			s.after = append(s.after, u)
		case same:
			for _, t := range first {
				s.afterTasks = append(s.afterTasks, taskRef{u, t})
			}
		default:
			if s.tasks == nil || up.tasks == nil {
				return false
			}
			for k := range deps {
				if ts := tasksOf(k); len(ts) != 1 || ts[0] != s.tasks[k] {
					return false
				}
			}
			s.corr = append(s.corr, u)
		}
	}
	return true
}

// dependency renders the --dependency value given the submissions' job IDs.
func (s *submission) dependency(ids []string) string {
	var ok []string
	for _, u := range s.after {
		ok = append(ok, ids[u])
	}
	for _, t := range s.afterTasks {
		ok = append(ok, t.jobRef(ids))
	}
	var parts []string
	if len(ok) > 0 {
		parts = append(parts, "afterok:"+strings.Join(ok, ":"))
	}
	if len(s.corr) > 0 {
		var corr []string
		for _, u := range s.corr {
			corr = append(corr, ids[u])
		}
		parts = append(parts, "aftercorr:"+strings.Join(corr, ":"))
	}
	return strings.Join(parts, ",")
}

// ranges writes sorted task IDs as Slurm's --array list: "0-3,5,7-8".
func ranges(tasks []int) string {
	var parts []string
	for i := 0; i < len(tasks); {
		j := i
		for j+1 < len(tasks) && tasks[j+1] == tasks[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(tasks[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", tasks[i], tasks[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

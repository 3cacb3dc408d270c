package config

import (
	"slices"
	"strings"
)

// checkInputs reports dangling inputs and dependency cycles.
func (c *Config) checkInputs() []error {
	byName := make(map[string]*Stage, len(c.Stages))
	for _, s := range c.Stages {
		byName[s.Name] = s
	}
	var errs []error
	for _, s := range c.Stages {
		for _, in := range s.Inputs {
			for _, from := range in.From {
				if byName[from] == nil {
					errs = append(errs, c.Errorf([]string{"stage", s.Name, "inputs", in.Flag},
						"no stage named %q (stages: %s)", from, strings.Join(c.StageNames(), ", ")))
				}
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if _, err := c.Order(); err != nil {
		return []error{err}
	}
	return nil
}

func (c *Config) StageNames() []string {
	names := make([]string, len(c.Stages))
	for i, s := range c.Stages {
		names[i] = s.Name
	}
	return names
}

// order returns the stages in dependency order, ties kept in file order.
func (c *Config) Order() ([]*Stage, error) {
	byName := make(map[string]*Stage, len(c.Stages))
	for _, s := range c.Stages {
		byName[s.Name] = s
	}
	const (
		unseen = iota
		visiting
		done
	)
	mark := make(map[*Stage]int)
	var order []*Stage
	var path []string
	var visit func(s *Stage, via []string) error
	visit = func(s *Stage, via []string) error {
		switch mark[s] {
		case done:
			return nil
		case visiting:
			i := slices.Index(path, s.Name)
			cycle := append(slices.Clone(path[i:]), s.Name)
			return c.Errorf(via, "dependency cycle: %s", strings.Join(cycle, " -> "))
		}
		mark[s] = visiting
		path = append(path, s.Name)
		for _, in := range s.Inputs {
			for _, from := range in.From {
				if err := visit(byName[from], []string{"stage", s.Name, "inputs", in.Flag}); err != nil {
					return err
				}
			}
		}
		path = path[:len(path)-1]
		mark[s] = done
		order = append(order, s)
		return nil
	}
	for _, s := range c.Stages {
		if err := visit(s, []string{"stage", s.Name}); err != nil {
			return nil, err
		}
	}
	return order, nil
}

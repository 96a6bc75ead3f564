package model

import "iter"

// Served is a resource in the group version that serves it.
type Served struct {
	Group   *Group
	Version *Version
	*Resource
}

// Served yields every resource of the project with its group and version, group by group and
// version by version, in the model's order.
func (p *Project) Served() iter.Seq[Served] {
	return func(yield func(Served) bool) {
		for _, g := range p.Groups {
			for _, v := range g.Versions {
				for _, r := range v.Resources {
					if !yield(Served{g, v, r}) {
						return
					}
				}
			}
		}
	}
}

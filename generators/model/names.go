package model

// IsResourceName reports whether name may be a resource's path, singular or short name: a
// lower-case DNS-1035 label, the rule Validate applies to +apigen:resource's names.
func IsResourceName(name string) bool { return resourceName.MatchString(name) }

// validateNames checks the path, singular and short names of a resource's kind, at the
// resource's marker, naming the marker argument that holds a bad one: every version's marker
// declares them.
func (r *Resource) validateNames(errs *ErrorList) {
	check := func(arg, name string) {
		if !resourceName.MatchString(name) {
			errs.Add(r.Pos, "%s on %s: %s=%q is not a valid resource name (lower-case letters, digits and '-', starting with a letter)", r.marker(), r.Kind, arg, name)
		}
	}
	check("path", r.Declared.Plural)
	check("singular", r.Declared.Singular)
	for _, s := range r.Declared.ShortNames {
		check("shortName", s)
	}
}

// validateUniqueNames checks that no two resources of a version share a singular or a short
// name, and that a short name is no other resource's plural or singular: kubectl resolves each
// of them to one resource, and the singular names the resource's storage package.
func (v *Version) validateUniqueNames(errs *ErrorList) {
	type owner struct {
		r   *Resource
		arg string
	}
	names := map[string]owner{}
	for _, r := range v.Resources {
		names[r.Declared.Plural] = owner{r, "path"}
	}
	claim := func(r *Resource, arg, name string) {
		prev, ok := names[name]
		switch {
		case !ok:
			names[name] = owner{r, arg}
		case prev.r != r:
			errs.Add(r.Pos, "%s on %s: %s=%q is already the %s of %s (%s at %s); kubectl would not know which resource it means, give one of them another %s=",
				r.marker(), r.Kind, arg, name, argMeaning[prev.arg], prev.r.Kind, prev.r.marker(), prev.r.Pos, arg)
		}
	}
	for _, r := range v.Resources {
		claim(r, "singular", r.Declared.Singular)
	}
	for _, r := range v.Resources {
		for _, s := range r.Declared.ShortNames {
			claim(r, "shortName", s)
		}
	}
}

// argMeaning says what each +apigen:resource name argument is, for messages.
var argMeaning = map[string]string{"path": "resource path", "singular": "singular name", "shortName": "short name"}

// SplitPath splits a JSONPath (spec.ports[?(@.name=="a")].port) or an OpenAPI schema path
// (properties[spec].properties[replicas]) at the dots outside brackets, which may hold dots
// of their own.
func SplitPath(path string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range path {
		switch c {
		case '[':
			depth++
		case ']':
			depth--
		case '.':
			if depth == 0 {
				out = append(out, path[start:i])
				start = i + 1
			}
		}
	}
	return append(out, path[start:])
}

package servertest

import (
	"reflect"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/randfill"
)

// recursionLimit is how many values of one recursive type an object holds nested in one
// another (a JSONSchemaProps' properties' properties).
const recursionLimit = 3

// boundedRecursion fills the recursive struct types of the scheme's kinds (a type that holds
// itself, through pointers, lists and maps: Cluster API's ClusterClass variables hold
// apiextensions' JSONSchemaProps) no deeper than recursionLimit, and a nested one beyond it
// stays empty. The fuzzer fills up to a hundred levels, and a type that holds itself in a
// dozen fields grows an object that exhausts the memory long before that. Fuzzer functions
// given for such a type replace this one.
func boundedRecursion(scheme *runtime.Scheme) fuzzer.FuzzerFuncs {
	return func(serializer.CodecFactory) []any {
		var funcs []any
		for _, t := range recursiveTypes(scheme) {
			depth := 0
			fn := reflect.FuncOf([]reflect.Type{reflect.PointerTo(t), reflect.TypeFor[randfill.Continue]()}, nil, false)
			funcs = append(funcs, reflect.MakeFunc(fn, func(args []reflect.Value) []reflect.Value {
				if depth >= recursionLimit {
					return nil
				}
				depth++
				defer func() { depth-- }()
				args[1].Interface().(randfill.Continue).FillNoCustom(args[0].Interface())
				return nil
			}).Interface())
		}
		return funcs
	}
}

// recursiveTypes are the struct types among the fields of the scheme's types that reach
// themselves (Tarjan's strongly connected components: a type in a component of more than one,
// or with a field that leads back to it), in a stable order.
func recursiveTypes(scheme *runtime.Scheme) []reflect.Type {
	edges := map[reflect.Type][]reflect.Type{}
	var collect func(t reflect.Type)
	collect = func(t reflect.Type) {
		if _, ok := edges[t]; ok {
			return
		}
		edges[t] = nil
		var out []reflect.Type
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			for _, s := range structsIn(f.Type) {
				out = append(out, s)
				collect(s)
			}
		}
		edges[t] = out
	}
	var roots []string
	known := scheme.AllKnownTypes()
	for gvk := range known {
		roots = append(roots, gvk.String())
	}
	slices.Sort(roots)
	byName := map[string]reflect.Type{}
	for gvk, t := range known {
		byName[gvk.String()] = t
	}
	var order []reflect.Type
	for _, name := range roots {
		if t := byName[name]; t.Kind() == reflect.Struct {
			if _, seen := edges[t]; !seen {
				order = append(order, t)
			}
			collect(t)
		}
	}
	// Tarjan over every type collected, visited from the roots in order.
	index, low := map[reflect.Type]int{}, map[reflect.Type]int{}
	onStack := map[reflect.Type]bool{}
	var stack, out []reflect.Type
	n := 0
	var visit func(t reflect.Type)
	visit = func(t reflect.Type) {
		index[t], low[t] = n, n
		n++
		stack = append(stack, t)
		onStack[t] = true
		for _, s := range edges[t] {
			if _, ok := index[s]; !ok {
				visit(s)
				low[t] = min(low[t], low[s])
			} else if onStack[s] {
				low[t] = min(low[t], index[s])
			}
		}
		if low[t] != index[t] {
			return
		}
		var component []reflect.Type
		for {
			s := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[s] = false
			component = append(component, s)
			if s == t {
				break
			}
		}
		selfLoop := false
		for _, s := range edges[t] {
			selfLoop = selfLoop || s == t
		}
		if len(component) > 1 || selfLoop {
			out = append(out, component...)
		}
	}
	for _, t := range order {
		if _, ok := index[t]; !ok {
			visit(t)
		}
	}
	return out
}

// structsIn are the struct types a field of type t holds: t itself, or the elements and keys
// of its pointers, lists and maps.
func structsIn(t reflect.Type) []reflect.Type {
	switch t.Kind() {
	case reflect.Struct:
		return []reflect.Type{t}
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return structsIn(t.Elem())
	case reflect.Map:
		return append(structsIn(t.Key()), structsIn(t.Elem())...)
	}
	return nil
}

// patternIn is the regular expression a validation message says a string must match
// ("spec.url in body should match '^(http|https|ssh)://.*$'").
var patternIn = regexp.MustCompile(`should match '(.*)'$`)

// matching is a short string that the pattern a validation message names matches, or ""
// when the message names none or no such string is found.
func matching(message string) string {
	m := patternIn.FindStringSubmatch(message)
	if m == nil {
		return ""
	}
	re, err := syntax.Parse(m[1], syntax.Perl)
	if err != nil {
		return ""
	}
	var b strings.Builder
	if !shortest(&b, re.Simplify()) {
		return ""
	}
	if ok, _ := regexp.MatchString(m[1], b.String()); !ok || b.Len() == 0 {
		return ""
	}
	return b.String()
}

// shortest writes a short string re matches: the first alternative, the least repetition
// (one at least, so that an optional part is not what makes the string empty), the first
// character of a class, preferring a letter or a digit.
func shortest(b *strings.Builder, re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		r, ok := classRune(re.Rune)
		if !ok {
			return false
		}
		b.WriteRune(r)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpCapture:
		return shortest(b, re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !shortest(b, s) {
				return false
			}
		}
	case syntax.OpAlternate:
		return shortest(b, re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
	case syntax.OpPlus:
		return shortest(b, re.Sub[0])
	case syntax.OpRepeat:
		for range re.Min {
			if !shortest(b, re.Sub[0]) {
				return false
			}
		}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
	default:
		return false
	}
	return true
}

// classRune picks a rune of a character class (pairs of ranges): a lower-case letter or a
// digit where the class has one, else its first.
func classRune(ranges []rune) (rune, bool) {
	if len(ranges) < 2 {
		return 0, false
	}
	for _, want := range []rune{'a', '1'} {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= want && want <= ranges[i+1] {
				return want, true
			}
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r < ranges[i]+128; r++ {
			if unicode.IsPrint(r) {
				return r, true
			}
		}
	}
	return ranges[0], true
}

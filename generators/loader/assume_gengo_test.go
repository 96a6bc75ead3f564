package loader

import (
	"testing"

	gengotypes "k8s.io/gengo/v2/types"
)

// TestAssumeGengoParserLayout: apigen knows the shape of the pinned gengo's parser and feeds
// it. When this fails after a gengo update, Run still works (gengo loads for itself, slowly):
// update parserLayout and feedParser to the new parser, or drop them if gengo can now be given
// loaded packages.
func TestAssumeGengoParserLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("loads from source, as TestLoad does in -short mode")
	}
	r, err := Run("testdata/project", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parserFields(r.Parser); err != nil {
		t.Fatal(err)
	}
	if !r.fed {
		t.Error("gengo's parser loaded the packages itself: apigen could not feed it")
	}
}

// TestAssumeGengoSharedBuiltins: every gengo universe hands out the same builtin types, the
// package-level variables of k8s.io/gengo/v2/types, and walking Go types into a universe sets
// their GoType: the state two loads at once would share, which universeMu serializes, and
// builtin tells apart. When this fails after a gengo update, see whether universes still
// share anything (universeMu may go) and what builtin must name.
func TestAssumeGengoSharedBuiltins(t *testing.T) {
	var universes []gengotypes.Universe
	for range 2 {
		// errors.New takes a string; its universe is small and loads in a moment.
		p, err := gengoLoad("testdata/project", []string{"errors"})
		if err != nil {
			t.Fatal(err)
		}
		c, err := newContext(p)
		if err != nil {
			t.Fatal(err)
		}
		universes = append(universes, c.Universe)
	}
	for i, u := range universes {
		if got := u[""].Types["string"]; got != gengotypes.String {
			t.Errorf("universe %d: string is %p, not gengo's types.String (%p)", i, got, gengotypes.String)
		}
		for name, bt := range u[""].Types {
			if bt.Kind == gengotypes.Builtin && !builtin(bt) {
				t.Errorf("universe %d: %s is builtin but builtin() says no", i, name)
			}
		}
	}
	if gengotypes.String.GoType == nil {
		t.Error("gengo's walk no longer sets types.String's GoType")
	}
	for _, bt := range []*gengotypes.Type{gengotypes.String, gengotypes.Int, gengotypes.Byte, gengotypes.Any} {
		if !builtin(bt) {
			t.Errorf("builtin(%s) = false", bt.Name)
		}
	}
	local := gengotypes.Universe{}.Type(gengotypes.Name{Package: "", Name: "interface{}"})
	if builtin(local) {
		t.Error("builtin() holds a type of the universe's own")
	}
}

package loader

import "testing"

// TestAssumeGengoParserLayout: apigen knows the shape of the pinned gengo's parser and feeds
// it. When this fails after a gengo update, Run still works (gengo loads for itself, slowly):
// update parserLayout and feedParser to the new parser, or drop them if gengo can now be given
// loaded packages.
func TestAssumeGengoParserLayout(t *testing.T) {
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

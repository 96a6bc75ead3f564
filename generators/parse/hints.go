package parse

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"strings"

	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// invalidResourceMarker reports whether a type's comments hold a resource marker whose
// arguments are wrong. Its error is reported already; the type's other markers are then left
// alone, since checking them would only add false errors such as "has no +apigen:resource
// marker" for a misspelt argument.
func (p *parser_) invalidResourceMarker(comments []*ast.CommentGroup) bool {
	for _, cg := range comments {
		for _, c := range cg.List {
			_, err := p.reg.Parse(c.Text, markers.Type, token.Position{})
			var e *markers.Error
			if errors.As(err, &e) && e.Def != nil && e.Def.IsDeclaration() {
				return true
			}
		}
	}
	return false
}

// listDecl is a list type's declaration on one line, json tags included, that compiles
// where it is pasted.
func listDecl(listKind, kind string) string {
	return fmt.Sprintf("type %s struct { metav1.TypeMeta `json:\",inline\"`; metav1.ListMeta `json:\"metadata,omitempty\"`; Items []%s `json:\"items\"` }", listKind, kind)
}

// noListHint says why a kind without a list type needs one, and ends with the declaration to
// add: a kind served by an etcd store is listed and watched; one that is never listed (a
// create-only review) can be served by storage of its own without list verbs instead, as
// kube-apiserver serves its reviews, with the marker that goes with own, the marker that
// declares the kind.
func noListHint(r *model.Resource, own markers.OwnStorage) string {
	decl := listDecl(r.Kind+"List", r.Kind)
	if cs := r.Declared.CustomStorage; cs != nil {
		var verbs []string
		for _, v := range cs.Verbs {
			if slices.Contains(model.ListVerbs, v) {
				verbs = append(verbs, v)
			}
		}
		return fmt.Sprintf("its storage's verbs %s (declared at %s) answer with one; add: %s", strings.Join(verbs, ", "), cs.Pos, decl)
	}
	return fmt.Sprintf("its etcd store lists and watches it (a kind that is never listed, such as a review, can have storage of its own instead: %s); add: %s", own.OwnStorageMarker("create"), decl)
}

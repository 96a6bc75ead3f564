package parse

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"

	"github.com/apigen-dev/apigen/generators/markers"
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
			if errors.As(err, &e) && e.Def != nil && e.Def.Name == markers.ResourceMarker {
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

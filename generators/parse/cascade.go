package parse

import (
	"errors"
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

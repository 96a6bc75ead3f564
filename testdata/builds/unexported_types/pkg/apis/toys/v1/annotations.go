package v1

import "encoding/json"

// Unexported types of the user's own, as a hand-written conversion keeps in an API package
// (the shape an annotation's JSON has): no generated file may name them from another package.
type annotatedColor struct {
	Name   string
	Shades []shade
}

type shade struct{ Value int32 }

// colorAnnotation is a widget's color as such an annotation carries it.
func colorAnnotation(s WidgetSpec) string {
	data, _ := json.Marshal(annotatedColor{Name: s.Color, Shades: []shade{{Value: 1}}})
	return string(data)
}

var _ = colorAnnotation

// This file was scaffolded by apigen and is yours to edit.

package v1

import (
	"k8s.io/apimachinery/pkg/conversion"

	v2 "example.com/toys/pkg/apis/toys/v2"
)

// Convert_v1_WidgetSpec_To_v2_WidgetSpec converts v1's color to v2's paint.
func Convert_v1_WidgetSpec_To_v2_WidgetSpec(in *WidgetSpec, out *v2.WidgetSpec, s conversion.Scope) error {
	if err := autoConvert_v1_WidgetSpec_To_v2_WidgetSpec(in, out, s); err != nil {
		return err
	}
	out.Paint = in.Color
	return nil
}

// Convert_v2_WidgetSpec_To_v1_WidgetSpec converts v2's paint to v1's color.
func Convert_v2_WidgetSpec_To_v1_WidgetSpec(in *v2.WidgetSpec, out *WidgetSpec, s conversion.Scope) error {
	if err := autoConvert_v2_WidgetSpec_To_v1_WidgetSpec(in, out, s); err != nil {
		return err
	}
	out.Color = in.Paint
	return nil
}

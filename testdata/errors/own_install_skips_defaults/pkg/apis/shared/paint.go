// Package shared holds types the group's versions share.
package shared

// Paint is a colour.
type Paint struct {
	// +default="red"
	Color string `json:"color,omitempty"`
}

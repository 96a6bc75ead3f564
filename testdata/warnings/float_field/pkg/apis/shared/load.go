// Package shared holds types the group's versions share.
package shared

// Load is how busy something is, a fraction.
type Load struct {
	Fraction float64 `json:"fraction,omitempty"`
}

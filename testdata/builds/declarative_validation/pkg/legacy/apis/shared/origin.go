// Package shared is the toys API's older shared package. Its path ends as pkg/apis/shared's
// does, and it declares a type of the same name: the Validate_ functions the version packages
// copy from the two must have different names.
package shared

// Origin is where a toy was first made.
type Origin struct {
	// +k8s:optional
	// +k8s:maxLength=8
	Workshop string `json:"workshop,omitempty"`
}

// +k8s:openapi-gen=true

package v2

// Thing is a thing.
type Thing struct {
	Name string `json:"name"`
}

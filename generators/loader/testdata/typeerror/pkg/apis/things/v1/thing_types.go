package v1

// Thing is a thing.
type Thing struct {
	Spec ThingSpec `json:"spec"`
}

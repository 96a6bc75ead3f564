package v1alpha1

// Default sets ReferenceType to Flunder when a reference is given without one. The generated
// registration calls it whenever a v1alpha1 Flunder is decoded; validation is the storage
// version's (v1beta1's Validate), whichever version a request uses.
func (f *Flunder) Default() {
	if f.Spec.Reference != "" && f.Spec.ReferenceType == nil {
		t := FlunderReferenceType
		f.Spec.ReferenceType = &t
	}
}

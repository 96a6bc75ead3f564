package shared

// DeepCopyInto copies in into out.
func (in *ToySpec) DeepCopyInto(out *ToySpec) {
	*out = *in
	if in.Colour != nil {
		c := *in.Colour
		out.Colour = &c
	}
	if in.Policy != nil {
		out.Policy = new(Policy)
		in.Policy.DeepCopyInto(out.Policy)
	}
}

// DeepCopyInto copies in into out.
func (in *Policy) DeepCopyInto(out *Policy) {
	*out = *in
	if in.Resolution != nil {
		r := *in.Resolution
		out.Resolution = &r
	}
}

// DeepCopyInto copies in into out.
func (in *Observed) DeepCopyInto(out *Observed) { *out = *in }

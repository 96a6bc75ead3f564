package model

// IsResourceName reports whether name may be a resource's path, singular or short name: a
// lower-case DNS-1035 label, the rule Validate applies to +apigen:resource's names.
func IsResourceName(name string) bool { return resourceName.MatchString(name) }

package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Hosts is a named slice without +protobuf.nullable: on the wire it is its elements, repeated,
// as an unnamed slice is, and a nil list and an empty one are the same.
type Hosts []string

// Verbs is declared as metav1 declares its Verbs: a field holds it as the message of its
// elements, written when it is not nil, so that an empty list stays apart from nil.
//
// +protobuf.nullable=true
type Verbs []string

// ResourceInfo has the fields, JSON names and protobuf tags of metav1.APIResource, whose verbs
// are a nullable named slice held directly: it encodes to the bytes metav1's generated.pb.go
// writes for an APIResource.
type ResourceInfo struct {
	Name               string   `json:"name" protobuf:"bytes,1,opt,name=name"`
	SingularName       string   `json:"singularName" protobuf:"bytes,6,opt,name=singularName"`
	Namespaced         bool     `json:"namespaced" protobuf:"varint,2,opt,name=namespaced"`
	Group              string   `json:"group,omitempty" protobuf:"bytes,8,opt,name=group"`
	Version            string   `json:"version,omitempty" protobuf:"bytes,9,opt,name=version"`
	Kind               string   `json:"kind" protobuf:"bytes,3,opt,name=kind"`
	Verbs              Verbs    `json:"verbs" protobuf:"bytes,4,opt,name=verbs"`
	ShortNames         []string `json:"shortNames,omitempty" protobuf:"bytes,5,rep,name=shortNames"`
	Categories         []string `json:"categories,omitempty" protobuf:"bytes,7,rep,name=categories"`
	StorageVersionHash string   `json:"storageVersionHash,omitempty" protobuf:"bytes,10,opt,name=storageVersionHash"`
}

// Catalog holds named slices directly: without +protobuf.nullable, with it, through a
// pointer, and metav1's own Verbs.
type Catalog struct {
	Hosts     Hosts          `json:"hosts,omitempty"`
	Verbs     Verbs          `json:"verbs,omitempty"`
	Fallback  *Verbs         `json:"fallback,omitempty"`
	MetaVerbs metav1.Verbs   `json:"metaVerbs,omitempty"`
	Resources []ResourceInfo `json:"resources,omitempty"`
}

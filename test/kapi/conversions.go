package kapi

// Conversions are the files a user writes beside k8s.io/api's older versions whose
// conversions k8s.io/kubernetes writes by hand (through its internal types, which k8s.io/api
// does not ship), by "<group dir>/<version>": the functions apigen generate names at each
// field that cannot cross between the version and the group's preferred one. Copy writes each
// as conversion.go, %[1]s replaced by the project's module path.
var Conversions = map[string]string{
	"certificates/v1beta1": certificatesV1beta1,
	"resource/v1beta1":     resourceV1beta1,
}

// certificatesV1beta1: v1beta1's PodCertificateRequestSpec has the pkixPublicKey and
// proofOfPossession v1 has no field for. The kind is stored in v1beta1, as kube-apiserver
// stores it (StorageVersions); read in v1 they travel in annotations, so that an object
// written back in v1 keeps them, as autoscaling/v1's fields travel in kube-apiserver.
const certificatesV1beta1 = `package v1beta1

import (
	"encoding/base64"
	"maps"

	"k8s.io/apimachinery/pkg/conversion"

	v1 "%[1]s/pkg/apis/certificates/v1"
)

// The fields of v1beta1's PodCertificateRequestSpec that v1 has no field for, base64 in
// annotations of the object read in v1.
const (
	pkixPublicKeyAnnotation     = "certificates.k8s.io/v1beta1-pkix-public-key"
	proofOfPossessionAnnotation = "certificates.k8s.io/v1beta1-proof-of-possession"
)

func Convert_v1beta1_PodCertificateRequest_To_v1_PodCertificateRequest(in *PodCertificateRequest, out *v1.PodCertificateRequest, s conversion.Scope) error {
	if err := autoConvert_v1beta1_PodCertificateRequest_To_v1_PodCertificateRequest(in, out, s); err != nil {
		return err
	}
	if in.Spec.PKIXPublicKey == nil && in.Spec.ProofOfPossession == nil {
		return nil
	}
	out.Annotations = maps.Clone(in.Annotations)
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	if in.Spec.PKIXPublicKey != nil {
		out.Annotations[pkixPublicKeyAnnotation] = base64.StdEncoding.EncodeToString(in.Spec.PKIXPublicKey)
	}
	if in.Spec.ProofOfPossession != nil {
		out.Annotations[proofOfPossessionAnnotation] = base64.StdEncoding.EncodeToString(in.Spec.ProofOfPossession)
	}
	return nil
}

func Convert_v1_PodCertificateRequest_To_v1beta1_PodCertificateRequest(in *v1.PodCertificateRequest, out *PodCertificateRequest, s conversion.Scope) error {
	if err := autoConvert_v1_PodCertificateRequest_To_v1beta1_PodCertificateRequest(in, out, s); err != nil {
		return err
	}
	key, hasKey := in.Annotations[pkixPublicKeyAnnotation]
	proof, hasProof := in.Annotations[proofOfPossessionAnnotation]
	if !hasKey && !hasProof {
		return nil
	}
	var err error
	if hasKey {
		if out.Spec.PKIXPublicKey, err = base64.StdEncoding.DecodeString(key); err != nil {
			return err
		}
	}
	if hasProof {
		if out.Spec.ProofOfPossession, err = base64.StdEncoding.DecodeString(proof); err != nil {
			return err
		}
	}
	out.Annotations = maps.Clone(in.Annotations)
	delete(out.Annotations, pkixPublicKeyAnnotation)
	delete(out.Annotations, proofOfPossessionAnnotation)
	if len(out.Annotations) == 0 {
		out.Annotations = nil
	}
	return nil
}

// The object's conversions above carry the two fields; the spec's own have nothing to add.

func Convert_v1beta1_PodCertificateRequestSpec_To_v1_PodCertificateRequestSpec(in *PodCertificateRequestSpec, out *v1.PodCertificateRequestSpec, s conversion.Scope) error {
	return autoConvert_v1beta1_PodCertificateRequestSpec_To_v1_PodCertificateRequestSpec(in, out, s)
}
`

// resourceV1beta1: v1 moved the fields of v1beta1's Device.basic to the Device itself, and
// those of a DeviceRequest that asks for devices of one class to its exactly; each keeps its
// JSON name, so they move as JSON.
const resourceV1beta1 = `package v1beta1

import (
	"encoding/json"
	"reflect"

	"k8s.io/apimachinery/pkg/conversion"

	v1 "%[1]s/pkg/apis/resource/v1"
)

// viaJSON decodes into to what from encodes to as JSON; fields to has no field for are left
// out, fields from does not set are left as they are.
func viaJSON(from, to any) error {
	data, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, to)
}

func Convert_v1beta1_Device_To_v1_Device(in *Device, out *v1.Device, s conversion.Scope) error {
	if err := autoConvert_v1beta1_Device_To_v1_Device(in, out, s); err != nil {
		return err
	}
	if in.Basic == nil {
		return nil
	}
	return viaJSON(in.Basic, out)
}

func Convert_v1_Device_To_v1beta1_Device(in *v1.Device, out *Device, s conversion.Scope) error {
	if err := autoConvert_v1_Device_To_v1beta1_Device(in, out, s); err != nil {
		return err
	}
	basic := &BasicDevice{}
	if err := viaJSON(in, basic); err != nil {
		return err
	}
	out.Basic = nil
	if !reflect.DeepEqual(*basic, BasicDevice{}) {
		out.Basic = basic
	}
	return nil
}

func Convert_v1beta1_DeviceRequest_To_v1_DeviceRequest(in *DeviceRequest, out *v1.DeviceRequest, s conversion.Scope) error {
	if err := autoConvert_v1beta1_DeviceRequest_To_v1_DeviceRequest(in, out, s); err != nil {
		return err
	}
	// A request of subrequests (firstAvailable) sets none of exactly's fields; one that sets
	// both, which validation refuses, keeps both.
	exactly := &v1.ExactDeviceRequest{}
	if err := viaJSON(in, exactly); err != nil {
		return err
	}
	out.Exactly = nil
	if !reflect.DeepEqual(*exactly, v1.ExactDeviceRequest{}) {
		out.Exactly = exactly
	}
	return nil
}

func Convert_v1_DeviceRequest_To_v1beta1_DeviceRequest(in *v1.DeviceRequest, out *DeviceRequest, s conversion.Scope) error {
	if err := autoConvert_v1_DeviceRequest_To_v1beta1_DeviceRequest(in, out, s); err != nil {
		return err
	}
	if in.Exactly == nil {
		return nil
	}
	return viaJSON(in.Exactly, out)
}
`

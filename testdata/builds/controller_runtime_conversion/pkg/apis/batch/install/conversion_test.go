package install

import (
	"strings"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	v1 "example.com/wardle/api/v1"
	v2 "example.com/wardle/api/v2"
)

var internal = schema.GroupVersion{Group: "batch.tutorial.kubebuilder.io", Version: runtime.APIVersionInternal}

// The scheme the generated Install fills converts v1's CronJob to its hub, v2's CronJob (the
// storage version, registered as the internal version), and back with the user's ConvertTo
// and ConvertFrom: v1's schedule is the hub's cron. Lists convert item by item.
func TestControllerRuntimeConversions(t *testing.T) {
	scheme := runtime.NewScheme()
	Install(scheme)
	spoke := &v1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "default", Labels: map[string]string{"app": "a"}},
		Spec:       v1.CronJobSpec{Schedule: "*/5 * * * *", ConcurrencyPolicy: "Forbid"},
	}
	hubObj, err := scheme.ConvertToVersion(spoke.DeepCopy(), internal)
	if err != nil {
		t.Fatal(err)
	}
	hub, ok := hubObj.(*v2.CronJob)
	if !ok {
		t.Fatalf("v1 CronJob converted to %T, want *v2.CronJob", hubObj)
	}
	if hub.Spec.Cron != "*/5 * * * *" || hub.Spec.ConcurrencyPolicy != "Forbid" || hub.Labels["app"] != "a" {
		t.Errorf("hub %+v, want v1's schedule in spec.cron, its policy and labels", hub)
	}
	backObj, err := scheme.ConvertToVersion(hub, v1.GroupVersion)
	if err != nil {
		t.Fatal(err)
	}
	back := backObj.(*v1.CronJob)
	if !apiequality.Semantic.DeepEqual(back.Spec, spoke.Spec) || !apiequality.Semantic.DeepEqual(back.ObjectMeta, spoke.ObjectMeta) {
		t.Errorf("v1 → hub → v1 gave %+v, want %+v", back, spoke)
	}

	list := &v1.CronJobList{Items: []v1.CronJob{*spoke, {Spec: v1.CronJobSpec{Schedule: "@daily"}}}}
	hubListObj, err := scheme.ConvertToVersion(list, internal)
	if err != nil {
		t.Fatal(err)
	}
	hubList := hubListObj.(*v2.CronJobList)
	if len(hubList.Items) != 2 || hubList.Items[0].Spec.Cron != "*/5 * * * *" || hubList.Items[1].Spec.Cron != "@daily" {
		t.Errorf("hub list %+v, want both schedules in spec.cron", hubList.Items)
	}
	backListObj, err := scheme.ConvertToVersion(hubList, v1.GroupVersion)
	if err != nil {
		t.Fatal(err)
	}
	if backList := backListObj.(*v1.CronJobList); len(backList.Items) != 2 || backList.Items[1].Spec.Schedule != "@daily" {
		t.Errorf("v1 list → hub → v1 gave %+v", backList.Items)
	}
}

// As the server decodes a request: v1 JSON becomes the hub with spec.cron set, and the hub is
// written back as v1 JSON with spec.schedule.
func TestControllerRuntimeConversionsThroughTheCodec(t *testing.T) {
	scheme := runtime.NewScheme()
	Install(scheme)
	codecs := serializer.NewCodecFactory(scheme)
	obj, err := runtime.Decode(codecs.UniversalDecoder(), []byte(`{"apiVersion":"batch.tutorial.kubebuilder.io/v1","kind":"CronJob","metadata":{"name":"a"},"spec":{"schedule":"@hourly"}}`))
	if err != nil {
		t.Fatal(err)
	}
	hub, ok := obj.(*v2.CronJob)
	if !ok || hub.Spec.Cron != "@hourly" || hub.Spec.ConcurrencyPolicy != "Allow" {
		t.Fatalf("decoded %T %+v, want the hub with spec.cron @hourly and the default policy", obj, obj)
	}
	data, err := runtime.Encode(codecs.LegacyCodec(v1.GroupVersion), hub)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(data); !strings.Contains(got, `"schedule":"@hourly"`) || strings.Contains(got, `"cron"`) {
		t.Errorf("encoded as v1: %s, want spec.schedule and no spec.cron", got)
	}
}

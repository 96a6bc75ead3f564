package e2e

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/apigen-dev/apigen/test/kapi"
)

// autoscalingV1Conversions is the file a user writes beside k8s.io/api's autoscaling/v1 for
// the functions apigen generate names: autoscaling/v1 is served beside v2 only through
// conversions k8s.io/kubernetes writes by hand (through its internal types, which k8s.io/api
// does not ship). What v1 has no field for travels in annotations, as kube-apiserver keeps it.
const autoscalingV1Conversions = `package v1

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/conversion"

	v2 "example.com/hpa/pkg/apis/autoscaling/v2"
)

// What autoscaling/v1 has no field for travels in annotations, as kube-apiserver keeps it:
// the metrics besides the CPU utilization target, the current metrics, the scaling behavior
// and the conditions.
const (
	metricsAnnotation        = "autoscaling.alpha.kubernetes.io/metrics"
	currentMetricsAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics"
	behaviorAnnotation       = "autoscaling.alpha.kubernetes.io/behavior"
	conditionsAnnotation     = "autoscaling.alpha.kubernetes.io/conditions"
)

var roundTripAnnotations = []string{metricsAnnotation, currentMetricsAnnotation, behaviorAnnotation, conditionsAnnotation}

// withoutRoundTrip is annotations less the ones the conversion writes (a copy, when it has any).
func withoutRoundTrip(annotations map[string]string) map[string]string {
	var out map[string]string
	for k, v := range annotations {
		drop := false
		for _, a := range roundTripAnnotations {
			drop = drop || k == a
		}
		if drop {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out
}

// setAnnotation sets key to v's JSON.
func setAnnotation(meta *map[string]string, key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if *meta == nil {
		*meta = map[string]string{}
	}
	(*meta)[key] = string(data)
	return nil
}

// kube-apiserver writes the behavior annotation from its internal types, which have no JSON
// tags: its keys are the Go field names, and an unset tolerance is null. Reading it back, JSON
// matches keys without regard to case, so v2's types read it.
type annotatedBehavior struct{ ScaleUp, ScaleDown *annotatedRules }

type annotatedRules struct {
	StabilizationWindowSeconds *int32
	SelectPolicy               *v2.ScalingPolicySelect
	Policies                   []annotatedPolicy
	Tolerance                  *resource.Quantity
}

type annotatedPolicy struct {
	Type          v2.HPAScalingPolicyType
	Value         int32
	PeriodSeconds int32
}

func annotatedBehaviorOf(b *v2.HorizontalPodAutoscalerBehavior) annotatedBehavior {
	rules := func(r *v2.HPAScalingRules) *annotatedRules {
		if r == nil {
			return nil
		}
		out := &annotatedRules{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy, Tolerance: r.Tolerance}
		for _, p := range r.Policies {
			out.Policies = append(out.Policies, annotatedPolicy(p))
		}
		return out
	}
	return annotatedBehavior{ScaleUp: rules(b.ScaleUp), ScaleDown: rules(b.ScaleDown)}
}

// cpuUtilization is the target of a metric that is v1's targetCPUUtilizationPercentage.
func cpuUtilization(m v2.MetricSpec) *int32 {
	if m.Type == v2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU {
		return m.Resource.Target.AverageUtilization
	}
	return nil
}

func Convert_v2_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler(in *v2.HorizontalPodAutoscaler, out *HorizontalPodAutoscaler, s conversion.Scope) error {
	if err := autoConvert_v2_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler(in, out, s); err != nil {
		return err
	}
	out.Annotations = withoutRoundTrip(out.Annotations)
	var others []MetricSpec
	for _, m := range in.Spec.Metrics {
		if cpuUtilization(m) != nil {
			continue
		}
		var o MetricSpec
		if err := Convert_v2_MetricSpec_To_v1_MetricSpec(&m, &o, s); err != nil {
			return err
		}
		others = append(others, o)
	}
	if len(others) > 0 {
		if err := setAnnotation(&out.Annotations, metricsAnnotation, others); err != nil {
			return err
		}
	}
	if len(in.Status.CurrentMetrics) > 0 {
		current := make([]MetricStatus, len(in.Status.CurrentMetrics))
		for i := range in.Status.CurrentMetrics {
			if err := Convert_v2_MetricStatus_To_v1_MetricStatus(&in.Status.CurrentMetrics[i], &current[i], s); err != nil {
				return err
			}
		}
		if err := setAnnotation(&out.Annotations, currentMetricsAnnotation, current); err != nil {
			return err
		}
	}
	if in.Spec.Behavior != nil {
		if err := setAnnotation(&out.Annotations, behaviorAnnotation, annotatedBehaviorOf(in.Spec.Behavior)); err != nil {
			return err
		}
	}
	if len(in.Status.Conditions) > 0 {
		conditions := make([]HorizontalPodAutoscalerCondition, len(in.Status.Conditions))
		for i := range in.Status.Conditions {
			if err := Convert_v2_HorizontalPodAutoscalerCondition_To_v1_HorizontalPodAutoscalerCondition(&in.Status.Conditions[i], &conditions[i], s); err != nil {
				return err
			}
		}
		if err := setAnnotation(&out.Annotations, conditionsAnnotation, conditions); err != nil {
			return err
		}
	}
	return nil
}

func Convert_v1_HorizontalPodAutoscaler_To_v2_HorizontalPodAutoscaler(in *HorizontalPodAutoscaler, out *v2.HorizontalPodAutoscaler, s conversion.Scope) error {
	if err := autoConvert_v1_HorizontalPodAutoscaler_To_v2_HorizontalPodAutoscaler(in, out, s); err != nil {
		return err
	}
	if data, ok := in.Annotations[metricsAnnotation]; ok {
		var others []MetricSpec
		if err := json.Unmarshal([]byte(data), &others); err == nil {
			metrics := make([]v2.MetricSpec, len(others), len(others)+1)
			for i := range others {
				if err := Convert_v1_MetricSpec_To_v2_MetricSpec(&others[i], &metrics[i], s); err != nil {
					return err
				}
			}
			out.Spec.Metrics = append(metrics, out.Spec.Metrics...) // the CPU target last
		}
	}
	if data, ok := in.Annotations[behaviorAnnotation]; ok {
		var b v2.HorizontalPodAutoscalerBehavior
		if err := json.Unmarshal([]byte(data), &b); err == nil && (b.ScaleUp != nil || b.ScaleDown != nil) {
			out.Spec.Behavior = &b
		}
	}
	if data, ok := in.Annotations[currentMetricsAnnotation]; ok {
		var current []MetricStatus
		if err := json.Unmarshal([]byte(data), &current); err == nil {
			out.Status.CurrentMetrics = make([]v2.MetricStatus, len(current))
			for i := range current {
				if err := Convert_v1_MetricStatus_To_v2_MetricStatus(&current[i], &out.Status.CurrentMetrics[i], s); err != nil {
					return err
				}
			}
		}
	}
	if len(out.Spec.Metrics) == 0 {
		// v1 left the CPU target to the controller, 80% when unset.
		target := int32(80)
		out.Spec.Metrics = []v2.MetricSpec{{Type: v2.ResourceMetricSourceType, Resource: &v2.ResourceMetricSource{
			Name: corev1.ResourceCPU, Target: v2.MetricTarget{Type: v2.UtilizationMetricType, AverageUtilization: &target}}}}
	}
	if data, ok := in.Annotations[conditionsAnnotation]; ok {
		var conditions []HorizontalPodAutoscalerCondition
		if err := json.Unmarshal([]byte(data), &conditions); err == nil {
			out.Status.Conditions = make([]v2.HorizontalPodAutoscalerCondition, len(conditions))
			for i := range conditions {
				if err := Convert_v1_HorizontalPodAutoscalerCondition_To_v2_HorizontalPodAutoscalerCondition(&conditions[i], &out.Status.Conditions[i], s); err != nil {
					return err
				}
			}
		}
	}
	out.Annotations = withoutRoundTrip(out.Annotations)
	return nil
}

func Convert_v2_HorizontalPodAutoscalerSpec_To_v1_HorizontalPodAutoscalerSpec(in *v2.HorizontalPodAutoscalerSpec, out *HorizontalPodAutoscalerSpec, s conversion.Scope) error {
	out.ScaleTargetRef = CrossVersionObjectReference(in.ScaleTargetRef)
	out.MinReplicas = in.MinReplicas
	out.MaxReplicas = in.MaxReplicas
	out.TargetCPUUtilizationPercentage = nil
	for _, m := range in.Metrics {
		if u := cpuUtilization(m); u != nil {
			v := *u
			out.TargetCPUUtilizationPercentage = &v
			break
		}
	}
	return nil
}

func Convert_v1_HorizontalPodAutoscalerSpec_To_v2_HorizontalPodAutoscalerSpec(in *HorizontalPodAutoscalerSpec, out *v2.HorizontalPodAutoscalerSpec, s conversion.Scope) error {
	out.ScaleTargetRef = v2.CrossVersionObjectReference(in.ScaleTargetRef)
	out.MinReplicas = in.MinReplicas
	out.MaxReplicas = in.MaxReplicas
	out.Metrics = nil
	if in.TargetCPUUtilizationPercentage != nil {
		v := *in.TargetCPUUtilizationPercentage
		out.Metrics = []v2.MetricSpec{{Type: v2.ResourceMetricSourceType, Resource: &v2.ResourceMetricSource{
			Name: corev1.ResourceCPU, Target: v2.MetricTarget{Type: v2.UtilizationMetricType, AverageUtilization: &v}}}}
	}
	return nil
}

func Convert_v2_HorizontalPodAutoscalerStatus_To_v1_HorizontalPodAutoscalerStatus(in *v2.HorizontalPodAutoscalerStatus, out *HorizontalPodAutoscalerStatus, s conversion.Scope) error {
	out.ObservedGeneration = in.ObservedGeneration
	out.LastScaleTime = in.LastScaleTime
	out.CurrentReplicas = in.CurrentReplicas
	out.DesiredReplicas = in.DesiredReplicas
	out.CurrentCPUUtilizationPercentage = nil
	for _, m := range in.CurrentMetrics {
		if m.Type == v2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU && m.Resource.Current.AverageUtilization != nil {
			v := *m.Resource.Current.AverageUtilization
			out.CurrentCPUUtilizationPercentage = &v
			break
		}
	}
	return nil
}

func Convert_v1_HorizontalPodAutoscalerStatus_To_v2_HorizontalPodAutoscalerStatus(in *HorizontalPodAutoscalerStatus, out *v2.HorizontalPodAutoscalerStatus, s conversion.Scope) error {
	out.ObservedGeneration = in.ObservedGeneration
	out.LastScaleTime = in.LastScaleTime
	out.CurrentReplicas = in.CurrentReplicas
	out.DesiredReplicas = in.DesiredReplicas
	out.CurrentMetrics = nil
	if in.CurrentCPUUtilizationPercentage != nil {
		v := *in.CurrentCPUUtilizationPercentage
		out.CurrentMetrics = []v2.MetricStatus{{Type: v2.ResourceMetricSourceType, Resource: &v2.ResourceMetricStatus{
			Name: corev1.ResourceCPU, Current: v2.MetricValueStatus{AverageUtilization: &v}}}}
	}
	return nil
}

// The metric sources: v1 names its targets by field (targetAverageValue), v2 by a MetricTarget
// and its type.

// v2Target is the MetricTarget of v1's utilization and average value targets: of an average
// value when it has one, else of the utilization.
func v2Target(utilization *int32, averageValue *resource.Quantity) v2.MetricTarget {
	t := v2.MetricTarget{Type: v2.UtilizationMetricType, AverageUtilization: utilization, AverageValue: averageValue}
	if averageValue != nil {
		t.Type = v2.AverageValueMetricType
	}
	return t
}

// setQuantity sets *out to *q when v2 has it (v1's field is not a pointer).
func setQuantity(out *resource.Quantity, q *resource.Quantity) {
	if q != nil {
		*out = *q
	}
}

func Convert_v2_ResourceMetricSource_To_v1_ResourceMetricSource(in *v2.ResourceMetricSource, out *ResourceMetricSource, s conversion.Scope) error {
	out.Name = in.Name
	out.TargetAverageUtilization, out.TargetAverageValue = in.Target.AverageUtilization, in.Target.AverageValue
	return nil
}

func Convert_v1_ResourceMetricSource_To_v2_ResourceMetricSource(in *ResourceMetricSource, out *v2.ResourceMetricSource, s conversion.Scope) error {
	out.Name = in.Name
	out.Target = v2Target(in.TargetAverageUtilization, in.TargetAverageValue)
	return nil
}

func Convert_v2_ContainerResourceMetricSource_To_v1_ContainerResourceMetricSource(in *v2.ContainerResourceMetricSource, out *ContainerResourceMetricSource, s conversion.Scope) error {
	out.Name, out.Container = in.Name, in.Container
	out.TargetAverageUtilization, out.TargetAverageValue = in.Target.AverageUtilization, in.Target.AverageValue
	return nil
}

func Convert_v1_ContainerResourceMetricSource_To_v2_ContainerResourceMetricSource(in *ContainerResourceMetricSource, out *v2.ContainerResourceMetricSource, s conversion.Scope) error {
	out.Name, out.Container = in.Name, in.Container
	out.Target = v2Target(in.TargetAverageUtilization, in.TargetAverageValue)
	return nil
}

func Convert_v2_PodsMetricSource_To_v1_PodsMetricSource(in *v2.PodsMetricSource, out *PodsMetricSource, s conversion.Scope) error {
	out.MetricName, out.Selector = in.Metric.Name, in.Metric.Selector
	setQuantity(&out.TargetAverageValue, in.Target.AverageValue)
	return nil
}

func Convert_v1_PodsMetricSource_To_v2_PodsMetricSource(in *PodsMetricSource, out *v2.PodsMetricSource, s conversion.Scope) error {
	v := in.TargetAverageValue
	out.Metric = v2.MetricIdentifier{Name: in.MetricName, Selector: in.Selector}
	out.Target = v2.MetricTarget{Type: v2.AverageValueMetricType, AverageValue: &v}
	return nil
}

func Convert_v2_ObjectMetricSource_To_v1_ObjectMetricSource(in *v2.ObjectMetricSource, out *ObjectMetricSource, s conversion.Scope) error {
	out.Target = CrossVersionObjectReference(in.DescribedObject)
	out.MetricName, out.Selector = in.Metric.Name, in.Metric.Selector
	setQuantity(&out.TargetValue, in.Target.Value)
	out.AverageValue = in.Target.AverageValue
	return nil
}

func Convert_v1_ObjectMetricSource_To_v2_ObjectMetricSource(in *ObjectMetricSource, out *v2.ObjectMetricSource, s conversion.Scope) error {
	out.DescribedObject = v2.CrossVersionObjectReference(in.Target)
	out.Metric = v2.MetricIdentifier{Name: in.MetricName, Selector: in.Selector}
	if in.AverageValue != nil {
		out.Target = v2.MetricTarget{Type: v2.AverageValueMetricType, AverageValue: in.AverageValue}
	} else {
		v := in.TargetValue
		out.Target = v2.MetricTarget{Type: v2.ValueMetricType, Value: &v}
	}
	return nil
}

func Convert_v2_ExternalMetricSource_To_v1_ExternalMetricSource(in *v2.ExternalMetricSource, out *ExternalMetricSource, s conversion.Scope) error {
	out.MetricName, out.MetricSelector = in.Metric.Name, in.Metric.Selector
	out.TargetValue, out.TargetAverageValue = in.Target.Value, in.Target.AverageValue
	return nil
}

func Convert_v1_ExternalMetricSource_To_v2_ExternalMetricSource(in *ExternalMetricSource, out *v2.ExternalMetricSource, s conversion.Scope) error {
	out.Metric = v2.MetricIdentifier{Name: in.MetricName, Selector: in.MetricSelector}
	out.Target = v2.MetricTarget{Value: in.TargetValue, AverageValue: in.TargetAverageValue}
	if in.TargetValue != nil {
		out.Target.Type = v2.ValueMetricType
	} else {
		out.Target.Type = v2.AverageValueMetricType
	}
	return nil
}

// The metric statuses: v1's current values by field, v2's in a MetricValueStatus.

// v2Current is the MetricValueStatus of v1's current utilization and average value.
func v2Current(utilization *int32, averageValue resource.Quantity) v2.MetricValueStatus {
	return v2.MetricValueStatus{AverageUtilization: utilization, AverageValue: &averageValue}
}

func Convert_v2_ResourceMetricStatus_To_v1_ResourceMetricStatus(in *v2.ResourceMetricStatus, out *ResourceMetricStatus, s conversion.Scope) error {
	out.Name = in.Name
	out.CurrentAverageUtilization = in.Current.AverageUtilization
	setQuantity(&out.CurrentAverageValue, in.Current.AverageValue)
	return nil
}

func Convert_v1_ResourceMetricStatus_To_v2_ResourceMetricStatus(in *ResourceMetricStatus, out *v2.ResourceMetricStatus, s conversion.Scope) error {
	out.Name = in.Name
	out.Current = v2Current(in.CurrentAverageUtilization, in.CurrentAverageValue)
	return nil
}

func Convert_v2_ContainerResourceMetricStatus_To_v1_ContainerResourceMetricStatus(in *v2.ContainerResourceMetricStatus, out *ContainerResourceMetricStatus, s conversion.Scope) error {
	out.Name, out.Container = in.Name, in.Container
	out.CurrentAverageUtilization = in.Current.AverageUtilization
	setQuantity(&out.CurrentAverageValue, in.Current.AverageValue)
	return nil
}

func Convert_v1_ContainerResourceMetricStatus_To_v2_ContainerResourceMetricStatus(in *ContainerResourceMetricStatus, out *v2.ContainerResourceMetricStatus, s conversion.Scope) error {
	out.Name, out.Container = in.Name, in.Container
	out.Current = v2Current(in.CurrentAverageUtilization, in.CurrentAverageValue)
	return nil
}

func Convert_v2_PodsMetricStatus_To_v1_PodsMetricStatus(in *v2.PodsMetricStatus, out *PodsMetricStatus, s conversion.Scope) error {
	out.MetricName, out.Selector = in.Metric.Name, in.Metric.Selector
	setQuantity(&out.CurrentAverageValue, in.Current.AverageValue)
	return nil
}

func Convert_v1_PodsMetricStatus_To_v2_PodsMetricStatus(in *PodsMetricStatus, out *v2.PodsMetricStatus, s conversion.Scope) error {
	out.Metric = v2.MetricIdentifier{Name: in.MetricName, Selector: in.Selector}
	out.Current = v2Current(nil, in.CurrentAverageValue)
	return nil
}

func Convert_v2_ObjectMetricStatus_To_v1_ObjectMetricStatus(in *v2.ObjectMetricStatus, out *ObjectMetricStatus, s conversion.Scope) error {
	out.Target = CrossVersionObjectReference(in.DescribedObject)
	out.MetricName, out.Selector = in.Metric.Name, in.Metric.Selector
	setQuantity(&out.CurrentValue, in.Current.Value)
	out.AverageValue = in.Current.AverageValue
	return nil
}

func Convert_v1_ObjectMetricStatus_To_v2_ObjectMetricStatus(in *ObjectMetricStatus, out *v2.ObjectMetricStatus, s conversion.Scope) error {
	v := in.CurrentValue
	out.DescribedObject = v2.CrossVersionObjectReference(in.Target)
	out.Metric = v2.MetricIdentifier{Name: in.MetricName, Selector: in.Selector}
	out.Current = v2.MetricValueStatus{Value: &v, AverageValue: in.AverageValue}
	return nil
}

func Convert_v2_ExternalMetricStatus_To_v1_ExternalMetricStatus(in *v2.ExternalMetricStatus, out *ExternalMetricStatus, s conversion.Scope) error {
	out.MetricName, out.MetricSelector = in.Metric.Name, in.Metric.Selector
	setQuantity(&out.CurrentValue, in.Current.Value)
	out.CurrentAverageValue = in.Current.AverageValue
	return nil
}

func Convert_v1_ExternalMetricStatus_To_v2_ExternalMetricStatus(in *ExternalMetricStatus, out *v2.ExternalMetricStatus, s conversion.Scope) error {
	v := in.CurrentValue
	out.Metric = v2.MetricIdentifier{Name: in.MetricName, Selector: in.MetricSelector}
	out.Current = v2.MetricValueStatus{Value: &v, AverageValue: in.CurrentAverageValue}
	return nil
}

// conversion-gen's autoConvert functions of ObjectMetricSource, which the functions above
// replace, still convert their target fields (a reference in v1, a MetricTarget in v2) by name.

func Convert_v1_CrossVersionObjectReference_To_v2_MetricTarget(in *CrossVersionObjectReference, out *v2.MetricTarget, s conversion.Scope) error {
	return nil
}

func Convert_v2_MetricTarget_To_v1_CrossVersionObjectReference(in *v2.MetricTarget, out *CrossVersionObjectReference, s conversion.Scope) error {
	return nil
}
`

// autoscalingDefaults are the files a user writes beside k8s.io/api's autoscaling versions for
// kube-apiserver's defaults, which k8s.io/kubernetes declares (SetDefaults_ functions k8s.io/api
// does not ship): one replica at least, and a behavior's unset rules filled with the
// controller's. v1's CPU target of 80 % is its conversion's (autoscalingV1Conversions).
var autoscalingDefaults = map[string]string{
	"v2": `package v2

// The scaling rules the controller follows where a behavior leaves them unset: up by 4 pods or
// 100 % every 15 s, whichever is more, at once; down by 100 % every 15 s, after the
// controller's own stabilization window.
func defaultScaleUp() *HPAScalingRules {
	max := MaxChangePolicySelect
	return &HPAScalingRules{
		StabilizationWindowSeconds: new(int32(0)),
		SelectPolicy:               &max,
		Policies: []HPAScalingPolicy{
			{Type: PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
}

func defaultScaleDown() *HPAScalingRules {
	max := MaxChangePolicySelect
	return &HPAScalingRules{
		SelectPolicy: &max,
		Policies:     []HPAScalingPolicy{{Type: PercentScalingPolicy, Value: 100, PeriodSeconds: 15}},
	}
}

// withDefaults is rules with each field it leaves unset taken from defaults.
func withDefaults(rules, defaults *HPAScalingRules) *HPAScalingRules {
	if rules == nil {
		return defaults
	}
	if rules.SelectPolicy != nil {
		defaults.SelectPolicy = rules.SelectPolicy
	}
	if rules.StabilizationWindowSeconds != nil {
		defaults.StabilizationWindowSeconds = rules.StabilizationWindowSeconds
	}
	if rules.Policies != nil {
		defaults.Policies = rules.Policies
	}
	if rules.Tolerance != nil {
		defaults.Tolerance = rules.Tolerance
	}
	return defaults
}

func SetDefaults_HorizontalPodAutoscaler(obj *HorizontalPodAutoscaler) {
	if obj.Spec.MinReplicas == nil {
		obj.Spec.MinReplicas = new(int32(1))
	}
	if len(obj.Spec.Metrics) == 0 {
		obj.Spec.Metrics = []MetricSpec{{Type: ResourceMetricSourceType, Resource: &ResourceMetricSource{
			Name: "cpu", Target: MetricTarget{Type: UtilizationMetricType, AverageUtilization: new(int32(80))}}}}
	}
	if b := obj.Spec.Behavior; b != nil {
		b.ScaleUp = withDefaults(b.ScaleUp, defaultScaleUp())
		b.ScaleDown = withDefaults(b.ScaleDown, defaultScaleDown())
	}
}
`,
	"v1": `package v1

func SetDefaults_HorizontalPodAutoscaler(obj *HorizontalPodAutoscaler) {
	if obj.Spec.MinReplicas == nil {
		obj.Spec.MinReplicas = new(int32(1))
	}
}
`,
}

// TestKubernetesAutoscalingV1 serves k8s.io/api's autoscaling/v2 and autoscaling/v1, copied
// unchanged, with the conversions written by the test as a user writes them
// (autoscalingV1Conversions), side by side with kube-apiserver v1.37: the two group-versions'
// discovery is the same, and a HorizontalPodAutoscaler created in v2 reads back in v1 (its CPU
// target a field, its other metrics an annotation) as kube-apiserver reads it, and one created
// in v1 reads back in v2 as kube-apiserver reads it. With kube-apiserver's defaults written as
// the project's SetDefaults_ functions (autoscalingDefaults), objects that leave the replicas,
// the metrics or a behavior's rules unset read back defaulted as kube-apiserver defaults them.
func TestKubernetesAutoscalingV1(t *testing.T) {
	tc := tools(t)
	work := t.TempDir()
	proj := initProject(t, tc, work, "example.com/hpa")
	r := mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv}, "go", "list", "-m", "-json", "k8s.io/api"))
	var api struct{ Dir string }
	if err := json.Unmarshal([]byte(r.Stdout), &api); err != nil || api.Dir == "" {
		t.Fatalf("go list -m k8s.io/api: %v\n%s", err, r)
	}
	for _, version := range []string{"v2", "v1"} {
		entries, err := os.ReadDir(filepath.Join(api.Dir, "autoscaling", version))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !e.IsDir() && !kapi.Generated(e.Name()) {
				writeFile(t, filepath.Join(proj, "pkg", "apis", "autoscaling", version, e.Name()), readFile(t, filepath.Join(api.Dir, "autoscaling", version, e.Name())))
			}
		}
	}
	// Without the conversions, the versions convert as a CRD's strategy None does, and apigen
	// generate names, at each field that cannot cross, the function to write to keep it.
	gen := runCmd(cmdOpts{Dir: proj, Env: goEnv}, tc.apigen, "generate")
	for _, fn := range []string{"Convert_v2_HorizontalPodAutoscalerSpec_To_v1_HorizontalPodAutoscalerSpec", "Convert_v2_HorizontalPodAutoscalerStatus_To_v1_HorizontalPodAutoscalerStatus"} {
		if !strings.Contains(gen.Stderr, fn) {
			t.Errorf("apigen generate without conversions does not name %s:\n%s", fn, gen)
		}
	}
	writeFile(t, filepath.Join(proj, "pkg", "apis", "autoscaling", "v1", "conversion.go"), autoscalingV1Conversions)
	for version, src := range autoscalingDefaults {
		writeFile(t, filepath.Join(proj, "pkg", "apis", "autoscaling", version, "defaults.go"), src)
	}
	mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv}, tc.apigen, "generate"))

	_, kas := startControlPlane(t, filepath.Join(work, "kube-apiserver"))
	kasConfig, err := kas.AdminConfig()
	if err != nil {
		t.Fatal(err)
	}
	k, stop := serve(t, tc, proj, work)
	defer stop()
	cfg := restConfig(t, k.kubeconfig)
	for _, gv := range []string{"autoscaling/v2", "autoscaling/v1"} {
		for _, d := range compareDiscovery(gv, discoveryResources(t, kasConfig, gv), discoveryResources(t, cfg, gv)) {
			t.Errorf("discovery %s: %s", d.key, d.what)
		}
	}

	theirs := dynamicFor(t, kas.AdminKubeconfig)
	ours, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hpa := func(version string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: "autoscaling", Version: version, Resource: "horizontalpodautoscalers"}
	}
	ctx := context.Background()
	for _, c := range []struct{ name, created, read, doc string }{
		{"web", "v2", "v1", `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
  - type: Resource
    resource: {name: memory, target: {type: AverageValue, averageValue: 500Mi}}
  - type: Pods
    pods:
      metric: {name: packets-per-second}
      target: {type: AverageValue, averageValue: 1k}
  - type: Object
    object:
      describedObject: {apiVersion: networking.k8s.io/v1, kind: Ingress, name: main-route}
      metric: {name: requests-per-second}
      target: {type: Value, value: 10k}
  - type: External
    external:
      metric: {name: queue-length, selector: {matchLabels: {queue: jobs}}}
      target: {type: AverageValue, averageValue: "30"}
`},
		{"api", "v1", "v2", `apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata:
  name: api
  namespace: default
  annotations:
    autoscaling.alpha.kubernetes.io/metrics: '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"1Gi"}}]'
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  minReplicas: 1
  maxReplicas: 4
  targetCPUUtilizationPercentage: 70
`},
		// kube-apiserver's defaults: the replicas, the CPU target and a behavior's rules.
		{"defaulted", "v2", "v1", `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: defaulted, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 5
  behavior:
    scaleDown: {stabilizationWindowSeconds: 120}
`},
		{"bare", "v1", "v2", `apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: bare, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: bare}
  maxReplicas: 3
`},
	} {
		obj := &unstructured.Unstructured{Object: yamlToObject(t, c.doc)}
		for _, dyn := range []dynamic.Interface{theirs, ours} {
			if _, err := dyn.Resource(hpa(c.created)).Namespace("default").Create(ctx, obj.DeepCopy(), metav1.CreateOptions{}); err != nil {
				t.Fatalf("%s: create in %s: %v", c.name, c.created, err)
			}
		}
		for _, version := range []string{c.created, c.read} {
			a, err1 := theirs.Resource(hpa(version)).Namespace("default").Get(ctx, c.name, metav1.GetOptions{})
			b, err2 := ours.Resource(hpa(version)).Namespace("default").Get(ctx, c.name, metav1.GetOptions{})
			if err1 != nil || err2 != nil {
				t.Fatalf("%s as %s: kube-apiserver: %v; the server: %v", c.name, version, err1, err2)
			}
			if want, have := mustJSON(a.Object["spec"]), mustJSON(b.Object["spec"]); want != have {
				t.Errorf("%s created in %s, read in %s: spec\nkube-apiserver: %s\nthe server:     %s", c.name, c.created, version, want, have)
			}
			if want, have := a.GetAnnotations(), b.GetAnnotations(); !maps.Equal(want, have) {
				t.Errorf("%s created in %s, read in %s: annotations\nkube-apiserver: %v\nthe server:     %v", c.name, c.created, version, want, have)
			}
			t.Logf("%s created in %s, read in %s alike: spec %s, annotations %v", c.name, c.created, version, mustJSON(b.Object["spec"]), slices.Sorted(maps.Keys(b.GetAnnotations())))
		}
	}
}

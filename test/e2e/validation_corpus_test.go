package e2e

// validationCase is one object of TestValidationDiff's corpus: created, then patched, on both
// servers. want is what kube-apiserver answers to the last request (nil: accepted; else a 422
// with causes at these field paths, or a wantCode error), so each case is known to show what it
// says it shows.
type validationCase struct {
	name    string
	markers []string // the markers (or behaviour) the case is about
	group   string   // the API group; checks.example.com when empty
	kind    string   // Widget or Gauge in checks.example.com, a kind of corpusResources in another group
	version string   // of the create; v1 when empty
	meta    string   // JSON of the object's metadata besides name and namespace
	content string   // JSON without apiVersion, kind and metadata
	patches []validationPatch
	strict  bool // the create asks for strict field validation (kubectl's default)
	// stored: the object (content) is not created through the API but written into each
	// server's storage beforehand (storeObjects), past validation, so that it may break a
	// rule: the requests are the patches, which ratcheting must judge.
	stored bool
	want   []string
	// wantCode is the HTTP status of a refusal that is not a 422.
	wantCode int

	// An intended difference: why the generated server answers otherwise, and what it answers
	// (typedCode 0 with typedWant nil: it accepts).
	differs   string
	typedCode int
	typedWant []string
}

type validationPatch struct {
	version string // v1 when empty
	status  bool   // to /status
	patch   string // a JSON merge patch
	replace bool   // patch is the whole object (without metadata) for an update without resourceVersion
}

// notChecked is the field of the cause kube-apiserver adds when an error (a wrong type, a value
// missing, too long or not in its enum) stops the CEL rules from running: "some validation rules
// were not checked because the object was invalid".
const notChecked = "<nil>"

// Reasons for the intended differences, listed in docs/guides/validation.md.
const (
	diffStructNeverAbsent = "a non-pointer struct field is never absent from a typed content: the generated server sees spec with its zero values (and defaults) where a CRD sees no spec"
	diffNoOmitempty       = "a field without omitempty is always present in a typed content: a CRD refuses its absence as Required (and then skips the CEL rules), the generated server sees the zero value, which may be valid or fail another check of the same field"
	diffEmptyOmitted      = "an empty list or map in an omitempty field is dropped when the typed object is encoded, so the generated server never sees it; a CRD checks the empty value it was sent"
	diffZeroDefaulted     = "defaulter-gen defaults a non-pointer field at its zero value, so an explicit zero (\"\") is defaulted by the generated server where a CRD keeps and checks it"
	diffWrongJSONType     = "a value of the wrong JSON type does not decode into the Go type: the generated server answers 400 BadRequest where a CRD answers 422 with the field"
)

const (
	owner       = `"owner":"alice"`
	fullSpec    = `{"spec":{"owner":"alice","replicas":3,"minReplicas":2,"percent":50,"step":10,"mode":"Slow","color":"green","contact":"alice@example.com","ports":[{"name":"http","port":80},{"name":"dns","port":53,"protocol":"UDP"}],"tags":["a","b"],"labels":{"tier":"gold"},"note":"hi","maxSurge":"25%","template":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"k":"v"}},"settings":{"any":{"deep":[1,"two"]}},"extra":[1,{"a":"b"}],"revision":7}}`
	condition   = `{"type":"Ready","status":"True","reason":"Up","message":"","lastTransitionTime":"2024-01-02T03:04:05Z"}`
	gaugeObject = `{"unit":"celsius","low":-10,"high":50}`
)

func spec(fields string) string { return `{"spec":{` + owner + `,` + fields + `}}` }

func mainPatch(p string) validationPatch              { return validationPatch{patch: p} }
func statusPatch(p string) validationPatch            { return validationPatch{status: true, patch: p} }
func v1beta1Patch(p string) validationPatch           { return validationPatch{version: "v1beta1", patch: p} }
func fields(paths ...string) []string                 { return paths }
func markers(names ...string) []string                { return names }
func patches(ps ...validationPatch) []validationPatch { return ps }

var validationCorpus = []validationCase{
	// Valid objects and defaults.
	{name: "widget minimal gets its defaults", markers: markers("+kubebuilder:default", "+default", "+optional"), kind: "Widget", content: `{"spec":{` + owner + `}}`},
	{name: "widget with every field valid", markers: markers("UniqueItems", "+listType=map", "+listMapKey", "+mapType", "Nullable", "XEmbeddedResource", "XPreserveUnknownFields", "Schemaless"), kind: "Widget", content: fullSpec},
	{name: "explicit zero kept in a pointer with a default", markers: markers("+kubebuilder:default"), kind: "Widget", content: spec(`"replicas":0`)},
	{name: "null in a field with a default is defaulted", markers: markers("+kubebuilder:default"), kind: "Widget", content: spec(`"replicas":null`)},
	{name: "null in a nullable field", markers: markers("Nullable"), kind: "Widget", content: spec(`"note":null`)},
	{name: "null in a non-nullable field is dropped", markers: markers("Nullable"), kind: "Widget", content: spec(`"color":null`)},
	{name: "default inside list items", markers: markers("+kubebuilder:default"), kind: "Widget", content: spec(`"ports":[{"name":"http","port":80}]`)},
	{name: "int-or-string as an integer", markers: markers("XIntOrString"), kind: "Widget", content: spec(`"maxSurge":3`)},
	{name: "int-or-string as a string", markers: markers("XIntOrString"), kind: "Widget", content: spec(`"maxSurge":"10%"`)},
	{name: "exclusive bounds just inside", markers: markers("ExclusiveMinimum", "ExclusiveMaximum"), kind: "Widget", content: spec(`"percent":1,"minReplicas":1`)},
	{name: "unknown field is pruned", markers: markers("pruning"), kind: "Widget", content: spec(`"bogus":1`)},
	{name: "unknown field refused by strict field validation", markers: markers("pruning"), kind: "Widget", content: spec(`"bogus":1`), strict: true, want: []string{}, wantCode: 400},
	{name: "schemaless field takes any value", markers: markers("Schemaless"), kind: "Widget", content: spec(`"extra":"just a string"`)},
	{name: "preserved fields keep unknown keys", markers: markers("XPreserveUnknownFields"), kind: "Widget", content: spec(`"settings":{"a":{"b":null,"c":[]}}`)},
	{name: "embedded resource keeps its fields", markers: markers("XEmbeddedResource"), kind: "Widget", content: spec(`"template":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"a":"b"}},"spec":{"replicas":1}}`)},

	// Metadata and updates, checked as for any object.
	{name: "invalid name", markers: markers("metadata"), kind: "Widget", meta: `{"name":"Bad_Name"}`, content: spec(`"replicas":1`), want: fields("metadata.name")},
	{name: "invalid label", markers: markers("metadata"), kind: "Gauge", meta: `{"labels":{"bad key":"v"}}`, content: gaugeObject, want: fields("metadata.labels")},
	{name: "invalid label on update", markers: markers("metadata"), kind: "Widget", content: spec(`"replicas":1`), patches: patches(mainPatch(`{"metadata":{"labels":{"bad key":"v"}}}`)), want: fields("metadata.labels")},
	// A kind whose schema its Go type satisfies skips the schema walk: its metadata is still
	// checked as a CRD's.
	{name: "typed kind valid", markers: markers("metadata"), kind: "Plain", content: `{"spec":{"size":3,"note":"x","since":"2026-01-01T00:00:00Z"}}`},
	{name: "typed kind invalid name", markers: markers("metadata"), kind: "Plain", meta: `{"name":"Bad_Plain"}`, content: `{"spec":{"size":3}}`, want: fields("metadata.name")},
	{name: "typed kind invalid label", markers: markers("metadata"), kind: "Plain", meta: `{"labels":{"bad key":"v"}}`, content: `{"spec":{"size":3}}`, want: fields("metadata.labels")},
	{name: "typed kind invalid label on update", markers: markers("metadata"), kind: "Plain", content: `{"spec":{"size":3}}`, patches: patches(mainPatch(`{"metadata":{"labels":{"bad key":"v"}},"spec":{"size":4}}`)), want: fields("metadata.labels")},
	{name: "update without resourceVersion", markers: markers("update"), kind: "Widget", content: spec(`"replicas":1`), patches: patches(validationPatch{replace: true, patch: spec(`"replicas":2`)}), want: fields("metadata.resourceVersion")},
	{name: "invalid status on create is dropped", markers: markers("status"), kind: "Widget", content: `{"spec":{` + owner + `},"status":{"phase":"Sleeping","readyReplicas":-1}}`},

	// Each marker violated.
	{name: "minimum", markers: markers("Minimum"), kind: "Widget", content: spec(`"replicas":-1`), want: fields("spec.replicas")},
	{name: "maximum", markers: markers("Maximum"), kind: "Widget", content: spec(`"replicas":11`), want: fields("spec.replicas")},
	{name: "exclusive minimum", markers: markers("ExclusiveMinimum"), kind: "Widget", content: spec(`"percent":0`), want: fields("spec.percent")},
	{name: "exclusive maximum", markers: markers("ExclusiveMaximum"), kind: "Widget", content: spec(`"percent":100`), want: fields("spec.percent")},
	{name: "multiple of", markers: markers("MultipleOf"), kind: "Widget", content: spec(`"step":7`), want: fields("spec.step")},
	{name: "min length", markers: markers("MinLength"), kind: "Widget", content: `{"spec":{"owner":"al"}}`, want: fields("spec.owner")},
	{name: "max length", markers: markers("MaxLength"), kind: "Widget", content: `{"spec":{"owner":"abcdefghijklm"}}`, want: fields(notChecked, "spec.owner")},
	{name: "pattern", markers: markers("Pattern"), kind: "Widget", content: `{"spec":{"owner":"Alice"}}`, want: fields("spec.owner")},
	{name: "enum on the type", markers: markers("Enum"), kind: "Widget", content: spec(`"mode":"Medium"`), want: fields(notChecked, "spec.mode")},
	{name: "enum on the field", markers: markers("Enum"), kind: "Widget", content: spec(`"color":"purple"`), want: fields(notChecked, "spec.color")},
	{name: "format", markers: markers("Format"), kind: "Widget", content: spec(`"contact":"not an address"`), want: fields(notChecked, "spec.contact")},
	{name: "min items", markers: markers("MinItems"), kind: "Widget", content: spec(`"tags":["a"]`), want: fields("spec.tags")},
	{name: "max items", markers: markers("MaxItems"), kind: "Widget", content: spec(`"ports":[{"name":"a","port":1},{"name":"b","port":2},{"name":"c","port":3},{"name":"d","port":4}]`), want: fields(notChecked, "spec.ports")},
	{name: "items max length", markers: markers("MaxLength"), kind: "Widget", content: spec(`"tags":["ok","abcdefghijk"]`), want: fields(notChecked, "spec.tags[1]")},
	{name: "list map key duplicated", markers: markers("+listType=map", "+listMapKey"), kind: "Widget", content: spec(`"ports":[{"name":"a","port":1},{"name":"a","port":2}]`), want: fields("spec.ports[1]")},
	{name: "list set item duplicated", markers: markers("+listType=set"), kind: "Widget", content: spec(`"tags":["a","b","a"]`), want: fields("spec.tags[2]")},
	{name: "max properties", markers: markers("MaxProperties", "+mapType"), kind: "Widget", content: spec(`"labels":{"a":"1","b":"2","c":"3"}`), want: fields(notChecked, "spec.labels")},
	{name: "int-or-string pattern", markers: markers("XIntOrString", "Pattern"), kind: "Widget", content: spec(`"maxSurge":"25"`), want: fields("spec.maxSurge")},
	{name: "embedded resource without kind", markers: markers("XEmbeddedResource"), kind: "Widget", content: spec(`"template":{"apiVersion":"v1","metadata":{"name":"cm"}}`), want: fields(notChecked, "spec.template.kind")},
	{name: "embedded resource without apiVersion", markers: markers("XEmbeddedResource"), kind: "Widget", content: spec(`"template":{"kind":"ConfigMap","metadata":{"name":"cm"}}`), want: fields(notChecked, "spec.template.apiVersion")},
	{name: "embedded resource metadata is pruned", markers: markers("XEmbeddedResource"), kind: "Widget", content: spec(`"template":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","bogus":1},"data":{"k":"v"}}`)},
	{name: "preserved field of the wrong type", markers: markers("XPreserveUnknownFields"), kind: "Widget", content: spec(`"settings":"flat"`), want: fields(notChecked, "spec.settings")},
	{name: "list item field bounds", markers: markers("Minimum", "MinLength"), kind: "Widget", content: spec(`"ports":[{"name":"","port":0}]`), want: fields("spec.ports[0].name", "spec.ports[0].port")},
	{name: "list item enum with default", markers: markers("Enum"), kind: "Widget", content: spec(`"ports":[{"name":"x","port":1,"protocol":"SCTP"}]`), want: fields(notChecked, "spec.ports[0].protocol")},
	{name: "required field of a list item missing", markers: markers("+required"), kind: "Widget", content: spec(`"ports":[{"port":80}]`), want: fields(notChecked, "spec.ports[0].name"),
		differs: diffNoOmitempty, typedCode: 422, typedWant: fields("spec.ports[0].name")},
	{name: "required spec field missing", markers: markers("+required", "Required"), kind: "Widget", content: `{"spec":{"replicas":2}}`, want: fields(notChecked, "spec.owner"),
		differs: diffNoOmitempty, typedCode: 422, typedWant: fields("spec.owner")},
	{name: "several violations at once", markers: markers("Maximum", "Enum", "MultipleOf"), kind: "Widget", content: spec(`"replicas":11,"color":"purple","step":3`), want: fields(notChecked, "spec.color", "spec.replicas", "spec.step")},

	// CEL rules.
	{name: "rule with message, fieldPath and reason", markers: markers("XValidation", "Optional"), kind: "Widget", content: spec(`"replicas":2,"minReplicas":5`), want: fields("spec.minReplicas")},
	{name: "rule with messageExpression", markers: markers("XValidation"), kind: "Widget", content: spec(`"replicas":6,"color":"red"`), want: fields("spec")},
	{name: "rule holds", markers: markers("XValidation"), kind: "Widget", content: spec(`"replicas":5,"color":"red"`)},
	{name: "rule sees defaults", markers: markers("XValidation", "+kubebuilder:default"), kind: "Widget", content: spec(`"minReplicas":2`), want: fields("spec.minReplicas")},
	{name: "optionalOldSelf rule on create", markers: markers("XValidation"), kind: "Widget", content: spec(`"revision":101`), want: fields("spec.revision")},
	{name: "root rule of a kind without spec", markers: markers("XValidation"), kind: "Gauge", content: `{"unit":"celsius","low":10,"high":5}`, want: fields(notChecked)},

	// Transition rules (oldSelf) through updates.
	{name: "immutable field changed", markers: markers("XValidation"), kind: "Widget", content: spec(`"replicas":1`), patches: patches(mainPatch(`{"spec":{"owner":"bob"}}`)), want: fields("spec.owner")},
	{name: "immutable field kept", markers: markers("XValidation"), kind: "Widget", content: spec(`"replicas":1`), patches: patches(mainPatch(`{"spec":{"replicas":4}}`))},
	{name: "optionalOldSelf rule on update going down", markers: markers("XValidation"), kind: "Widget", content: spec(`"revision":5`), patches: patches(mainPatch(`{"spec":{"revision":4}}`)), want: fields("spec.revision")},
	{name: "optionalOldSelf rule on update past the create bound", markers: markers("XValidation"), kind: "Widget", content: spec(`"revision":5`), patches: patches(mainPatch(`{"spec":{"revision":150}}`))},
	{name: "update makes the object invalid", markers: markers("Maximum"), kind: "Widget", content: spec(`"replicas":1`), patches: patches(mainPatch(`{"spec":{"replicas":11}}`)), want: fields("spec.replicas")},
	{name: "update removes a required field", markers: markers("+required"), kind: "Widget", content: spec(`"replicas":1`), patches: patches(mainPatch(`{"spec":{"owner":null}}`)), want: fields(notChecked, "spec.owner"),
		differs: diffNoOmitempty, typedCode: 422, typedWant: fields("spec.owner")},

	// Versions and ratcheting: v1beta1 allows up to 20 replicas, v1 up to 10.
	{name: "each version has its own schema", markers: markers("Maximum"), kind: "Widget", version: "v1beta1", content: spec(`"replicas":15`)},
	{name: "the stricter version refuses the same object", markers: markers("Maximum"), kind: "Widget", content: spec(`"replicas":15`), want: fields("spec.replicas")},
	{name: "ratcheting lets an unchanged invalid value through", markers: markers("Maximum", "ratcheting"), kind: "Widget", version: "v1beta1", content: spec(`"replicas":15`), patches: patches(mainPatch(`{"spec":{"color":"blue"}}`))},
	{name: "ratcheting does not let a changed invalid value through", markers: markers("Maximum", "ratcheting"), kind: "Widget", version: "v1beta1", content: spec(`"replicas":15`), patches: patches(mainPatch(`{"spec":{"replicas":14}}`)), want: fields("spec.replicas")},
	{name: "v1beta1 checks its own bounds", markers: markers("MinLength"), kind: "Widget", version: "v1beta1", content: `{"spec":{"owner":"al"}}`, want: fields("spec.owner")},
	{name: "v1beta1 update within its bounds", markers: markers("Maximum"), kind: "Widget", version: "v1beta1", content: spec(`"replicas":15`), patches: patches(v1beta1Patch(`{"spec":{"replicas":20}}`))},

	// Status writes.
	{name: "status write", markers: markers("status"), kind: "Widget", content: spec(`"replicas":2`), patches: patches(statusPatch(`{"status":{"readyReplicas":2,"phase":"Running","conditions":[` + condition + `]}}`))},
	{name: "status write leaves spec alone", markers: markers("status"), kind: "Widget", content: spec(`"replicas":2`), patches: patches(statusPatch(`{"spec":{"replicas":3},"status":{"phase":"Running"}}`))},
	{name: "main write leaves status alone", markers: markers("status"), kind: "Widget", content: spec(`"replicas":2`), patches: patches(statusPatch(`{"status":{"phase":"Running"}}`), mainPatch(`{"spec":{"replicas":3},"status":{"phase":"Failed"}}`))},
	{name: "status created with the object is dropped", markers: markers("status"), kind: "Widget", content: `{"spec":{` + owner + `},"status":{"phase":"Running"}}`},
	{name: "status enum", markers: markers("Enum"), kind: "Widget", content: spec(`"replicas":2`), patches: patches(statusPatch(`{"status":{"phase":"Sleeping"}}`)), want: fields(notChecked, "status.phase")},
	{name: "status minimum", markers: markers("Minimum"), kind: "Widget", content: spec(`"replicas":2`), patches: patches(statusPatch(`{"status":{"readyReplicas":-1}}`)), want: fields("status.readyReplicas")},
	{name: "status rule", markers: markers("XValidation"), kind: "Widget", content: spec(`"replicas":2`), patches: patches(statusPatch(`{"status":{"phase":"Pending","readyReplicas":3}}`)), want: fields("status")},
	{name: "status condition type duplicated", markers: markers("+listType=map"), kind: "Widget", content: spec(`"replicas":2`), patches: patches(statusPatch(`{"status":{"conditions":[` + condition + `,` + condition + `]}}`)), want: fields("status.conditions[1]")},
	{name: "status condition without reason", markers: markers("MinLength"), kind: "Widget", content: spec(`"replicas":2`), patches: patches(statusPatch(`{"status":{"conditions":[{"type":"Ready","status":"True","message":"","lastTransitionTime":"2024-01-02T03:04:05Z"}]}}`)), want: fields(notChecked, "status.conditions[0].reason"),
		differs: diffNoOmitempty, typedCode: 422, typedWant: fields("status.conditions[0].reason")},
	{name: "status enum in v1beta1", markers: markers("Enum"), kind: "Widget", content: spec(`"replicas":2`), patches: patches(validationPatch{version: "v1beta1", status: true, patch: `{"status":{"phase":"Sleeping"}}`}), want: fields(notChecked, "status.phase")},
	{name: "status write leaves metadata alone", markers: markers("status"), kind: "Widget", meta: `{"labels":{"a":"1"}}`, content: spec(`"replicas":2`), patches: patches(statusPatch(`{"metadata":{"labels":{"a":"2"},"annotations":{"b":"c"}},"status":{"phase":"Running"}}`))},
	{name: "labels change without a new generation", markers: markers("generation"), kind: "Gauge", content: gaugeObject, patches: patches(mainPatch(`{"metadata":{"labels":{"a":"1"}}}`))},
	{name: "status write ignores an invalid spec", markers: markers("status"), kind: "Widget", content: spec(`"replicas":2`), patches: patches(statusPatch(`{"spec":{"replicas":99},"status":{"phase":"Running"}}`))},

	// A kind without spec.
	{name: "gauge valid", markers: markers("Minimum", "Maximum"), kind: "Gauge", content: gaugeObject},
	{name: "gauge defaults", markers: markers("+kubebuilder:default"), kind: "Gauge", content: `{"unit":"celsius"}`},
	{name: "gauge minimum", markers: markers("Minimum"), kind: "Gauge", content: `{"unit":"celsius","low":-1001}`, want: fields("low")},
	{name: "gauge maximum", markers: markers("Maximum"), kind: "Gauge", content: `{"unit":"celsius","high":1001}`, want: fields("high")},
	{name: "gauge enum", markers: markers("Enum"), kind: "Gauge", content: `{"unit":"celsius","scale":"cubic"}`, want: fields(notChecked, "scale")},
	{name: "gauge rule sees the default", markers: markers("XValidation", "+kubebuilder:default"), kind: "Gauge", content: `{"unit":"celsius","low":100}`, want: fields(notChecked)},
	{name: "gauge update", markers: markers("Minimum"), kind: "Gauge", content: gaugeObject, patches: patches(mainPatch(`{"low":-20}`))},
	{name: "gauge update invalid", markers: markers("Minimum"), kind: "Gauge", content: gaugeObject, patches: patches(mainPatch(`{"low":-2000}`)), want: fields("low")},
	{name: "gauge status write", markers: markers("status"), kind: "Gauge", content: gaugeObject, patches: patches(statusPatch(`{"unit":"kelvin","status":{"reading":7}}`))},
	{name: "gauge status invalid", markers: markers("Maximum"), kind: "Gauge", content: gaugeObject, patches: patches(statusPatch(`{"status":{"reading":2000}}`)), want: fields("status.reading")},
	{name: "gauge main write leaves status alone", markers: markers("status"), kind: "Gauge", content: gaugeObject, patches: patches(statusPatch(`{"status":{"reading":7}}`), mainPatch(`{"high":60,"status":{"reading":9}}`))},
	{name: "gauge in v1beta1", markers: markers("Maximum"), kind: "Gauge", version: "v1beta1", content: `{"unit":"celsius","high":1001}`, want: fields("high")},

	// Intended differences.
	{name: "widget without spec", markers: markers("+required"), kind: "Widget", content: `{}`,
		differs: diffStructNeverAbsent, typedCode: 422, typedWant: fields("spec.owner")},
	{name: "gauge without unit", markers: markers("Required"), kind: "Gauge", content: `{"low":1}`, want: fields(notChecked, "unit"),
		differs: diffNoOmitempty},
	{name: "empty list under min items", markers: markers("MinItems"), kind: "Widget", content: spec(`"ports":[]`), want: fields("spec.ports"),
		differs: diffEmptyOmitted},
	{name: "empty map under min properties", markers: markers("MinProperties"), kind: "Widget", content: spec(`"labels":{}`), want: fields("spec.labels"),
		differs: diffEmptyOmitted},
	{name: "explicit empty string with a default", markers: markers("+default", "Enum"), kind: "Widget", content: spec(`"mode":""`), want: fields(notChecked, "spec.mode"),
		differs: diffZeroDefaulted},
	{name: "gauge explicit empty scale", markers: markers("+kubebuilder:default", "Enum"), kind: "Gauge", content: `{"unit":"celsius","scale":""}`, want: fields(notChecked, "scale"),
		differs: diffZeroDefaulted},
	{name: "string for an integer", markers: markers("Minimum"), kind: "Widget", content: spec(`"replicas":"three"`), want: fields(notChecked, "spec.replicas"),
		differs: diffWrongJSONType, typedCode: 400},
	{name: "bool for an int-or-string", markers: markers("XIntOrString"), kind: "Widget", content: spec(`"maxSurge":true`), want: fields(notChecked, "spec.maxSurge"),
		differs: diffWrongJSONType, typedCode: 400},
}

// issue10Markers are the markers the validation corpus must cover: each is used by the types
// in testdata/validation (found by its pattern), and is the subject of at least one case,
// which for a constraint must be an object that violates it.
var issue10Markers = []struct {
	marker     string // as in validationCase.markers
	source     string // a regular expression the types must match
	constraint bool   // some object can violate it
}{
	{"Minimum", `\+kubebuilder:validation:Minimum=`, true},
	{"Maximum", `\+kubebuilder:validation:Maximum=`, true},
	{"ExclusiveMinimum", `\+kubebuilder:validation:ExclusiveMinimum=true`, true},
	{"ExclusiveMaximum", `\+kubebuilder:validation:ExclusiveMaximum=true`, true},
	{"MultipleOf", `\+kubebuilder:validation:MultipleOf=`, true},
	{"MinLength", `\+kubebuilder:validation:MinLength=`, true},
	{"MaxLength", `\+kubebuilder:validation:(items:)?MaxLength=`, true},
	{"Pattern", `\+kubebuilder:validation:Pattern=`, true},
	{"Enum", `(?m)^// \+kubebuilder:validation:Enum=[\s\S]*^\t// \+kubebuilder:validation:Enum=`, true}, // on a type and on a field
	{"Format", `\+kubebuilder:validation:Format=`, true},
	{"MinItems", `\+kubebuilder:validation:MinItems=`, true},
	{"MaxItems", `\+kubebuilder:validation:MaxItems=`, true},
	// UniqueItems=true is refused in a CRD by kube-apiserver and by apigen generate alike
	// (checkRefusedSchemas, testdata/errors/unique_items); false is accepted and means nothing.
	{"UniqueItems", `\+kubebuilder:validation:UniqueItems=false`, false},
	{"MinProperties", `\+kubebuilder:validation:MinProperties=`, true},
	{"MaxProperties", `\+kubebuilder:validation:MaxProperties=`, true},
	{"Required", `\+kubebuilder:validation:Required\n`, true},
	{"Optional", `\+kubebuilder:validation:Optional\n`, false},
	{"+required", `// \+required\n`, true},
	{"+optional", `// \+optional\n`, false},
	{"Nullable", `// \+nullable\n`, false},
	{"XIntOrString", `\+kubebuilder:validation:XIntOrString\n`, true},
	{"XEmbeddedResource", `\+kubebuilder:validation:XEmbeddedResource\n`, true},
	{"XPreserveUnknownFields", `\+kubebuilder:validation:XPreserveUnknownFields\n`, true},
	{"Schemaless", `\+kubebuilder:validation:Schemaless\n`, false},
	{"+listType=map", `// \+listType=map\n`, true},
	{"+listType=set", `// \+listType=set\n`, true},
	{"+listMapKey", `// \+listMapKey=`, true},
	{"+mapType", `// \+mapType=`, true},
	{"XValidation", `XValidation:rule=.*,message=.*,fieldPath=.*,reason=`, true},
	{"XValidation", `XValidation:rule=.*,messageExpression=`, true},
	{"XValidation", `XValidation:rule=".*oldSelf.*",optionalOldSelf=true`, true},
	{"XValidation", `XValidation:rule="self == oldSelf"`, true},
	{"+kubebuilder:default", `\+kubebuilder:default=`, false},
	{"+default", `// \+default=`, false},
}

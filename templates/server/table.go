package server

import (
	"context"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
)

// Column is a print column of kubectl get, as in a CRD's additionalPrinterColumns.
type Column = apiextensionsv1.CustomResourceColumnDefinition

// ageColumn is what a CRD prints without columns of its own, and so what a version without
// print columns prints.
var ageColumn = Column{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"}

// NewTableConvertor returns what kubectl get prints for a resource served in several versions
// from one store: each version's print columns, evaluated by kube-apiserver's own CRD table
// convertor on the object converted to the version the request asked for (the store holds
// the hub). columns maps each served version to its columns; a version without any prints
// NAME and AGE, as a CRD does.
func NewTableConvertor(scheme *runtime.Scheme, group string, columns map[string][]Column) (rest.TableConvertor, error) {
	t := &tableConvertor{scheme: scheme, group: group, versions: map[string]rest.TableConvertor{}}
	for version, cols := range columns {
		if len(cols) == 0 {
			cols = []Column{ageColumn}
		}
		c, err := tableconvertor.New(cols)
		if err != nil {
			return nil, fmt.Errorf("print columns of %s/%s: %w", group, version, err)
		}
		t.versions[version] = c
	}
	return t, nil
}

type tableConvertor struct {
	scheme   *runtime.Scheme
	group    string
	versions map[string]rest.TableConvertor
}

func (t *tableConvertor) ConvertToTable(ctx context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	info, ok := request.RequestInfoFrom(ctx)
	if !ok {
		return nil, fmt.Errorf("no request information to choose print columns by")
	}
	c, ok := t.versions[info.APIVersion]
	if !ok {
		return nil, fmt.Errorf("no print columns for version %s of %s", info.APIVersion, t.group)
	}
	versioned, err := t.scheme.ConvertToVersion(obj, schema.GroupVersion{Group: t.group, Version: info.APIVersion})
	if err != nil {
		return nil, err
	}
	return c.ConvertToTable(ctx, versioned, tableOptions)
}

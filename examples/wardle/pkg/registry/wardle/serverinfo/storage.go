// This file was scaffolded by apigen and is yours to edit.

package serverinfo

import (
	"context"
	goruntime "runtime"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/registry/rest"

	v1beta1 "example.com/wardle/pkg/apis/wardle/v1beta1"
	"example.com/wardle/pkg/cmd/server"
)

// Name is the one ServerInfo there is: the server that answers.
const Name = "server"

// resourceVersion never changes: the object only changes when another server process answers.
const resourceVersion = "1"

var resource = schema.GroupResource{Group: "wardle.example.com", Resource: "serverinfos"}

// Storage serves serverinfos (get, list, watch) in place of an etcd store, as
// +apigen:storage:custom declares on ServerInfo: one object, computed at each request. The
// server checks when it starts that it serves exactly those verbs.
type Storage struct {
	// TableConvertor prints kubectl get's table: NAME and CREATED AT (the server's start).
	rest.TableConvertor
	started metav1.Time
}

// NewStorage returns the storage of serverinfos; the generated install code calls it.
func NewStorage(_ *runtime.Scheme) (rest.Storage, error) {
	return &Storage{
		TableConvertor: rest.NewDefaultTableConvertor(resource),
		started:        metav1.NewTime(time.Now().Truncate(time.Second)),
	}, nil
}

// info is the ServerInfo of this server.
func (s *Storage) info() *v1beta1.ServerInfo {
	return &v1beta1.ServerInfo{
		ObjectMeta: metav1.ObjectMeta{Name: Name, CreationTimestamp: s.started, ResourceVersion: resourceVersion},
		GoVersion:  goruntime.Version(),
		StartTime:  s.started,
	}
}

// matches reports whether the list or watch options select obj.
func matches(obj *v1beta1.ServerInfo, options *metainternalversion.ListOptions) bool {
	if options == nil {
		return true
	}
	if options.LabelSelector != nil && !options.LabelSelector.Matches(labels.Set(obj.Labels)) {
		return false
	}
	return options.FieldSelector == nil || options.FieldSelector.Matches(fields.Set{"metadata.name": obj.Name})
}

// New returns the object a request body decodes into.
func (s *Storage) New() runtime.Object { return &v1beta1.ServerInfo{} }

// Destroy releases what the storage holds when the server stops: nothing.
func (s *Storage) Destroy() {}

// NamespaceScoped says serverinfos are cluster-scoped.
func (s *Storage) NamespaceScoped() bool { return false }

// GetSingularName is the singular name kubectl accepts.
func (s *Storage) GetSingularName() string { return "serverinfo" }

// Get answers GET serverinfos/<name>.
func (s *Storage) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	if name != Name {
		return nil, apierrors.NewNotFound(resource, name)
	}
	return s.info(), nil
}

// NewList returns an empty list of serverinfos.
func (s *Storage) NewList() runtime.Object { return &v1beta1.ServerInfoList{} }

// List answers GET serverinfos, honouring label and field selectors.
func (s *Storage) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	list := &v1beta1.ServerInfoList{ListMeta: metav1.ListMeta{ResourceVersion: resourceVersion}}
	if info := s.info(); matches(info, options) {
		list.Items = append(list.Items, *info)
	}
	return list, nil
}

// Watch answers GET serverinfos?watch=true. The object never changes while the server runs, so
// a watch is its start and then nothing until the client goes away: the object as ADDED (a
// client-go informer's streaming list also gets the bookmark that ends its initial list), or
// nothing from a resource version the client already has.
func (s *Storage) Watch(ctx context.Context, options *metainternalversion.ListOptions) (watch.Interface, error) {
	var selected []runtime.Object
	if info := s.info(); matches(info, options) {
		selected = append(selected, info)
	}
	return server.StaticWatch(ctx, options, resourceVersion, &v1beta1.ServerInfo{}, selected...)
}

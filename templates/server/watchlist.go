package server

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// InitialEvents are the events a watch of REST storage the project writes (custom storage) must
// start with, as kube-apiserver's watch cache starts them: objects are the objects the watch
// selects as of resourceVersion.
//
//   - A streaming list (sendInitialEvents=true, what client-go's informers ask for by default
//     since v0.35): an ADDED event per object, then, when the client allows bookmarks, a BOOKMARK
//     at resourceVersion annotated k8s.io/initial-events-end, which tells the informer it has
//     the whole list. Without it an informer waits and never syncs.
//   - A watch from no resource version or "0": an ADDED event per object.
//   - A watch from a resource version: nothing; the storage sends what changed after it.
//
// bookmark is a new, empty object of the kind, which becomes the bookmark.
func InitialEvents(options *metainternalversion.ListOptions, resourceVersion string, bookmark runtime.Object, objects ...runtime.Object) ([]watch.Event, error) {
	var events []watch.Event
	streaming := options != nil && options.SendInitialEvents != nil && *options.SendInitialEvents
	if streaming || options == nil || options.ResourceVersion == "" || options.ResourceVersion == "0" {
		for _, obj := range objects {
			events = append(events, watch.Event{Type: watch.Added, Object: obj})
		}
	}
	if !streaming || !options.AllowWatchBookmarks {
		return events, nil
	}
	m, err := meta.Accessor(bookmark)
	if err != nil {
		return nil, err
	}
	m.SetResourceVersion(resourceVersion)
	m.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	return append(events, watch.Event{Type: watch.Bookmark, Object: bookmark}), nil
}

// StaticWatch is a whole watch of custom storage whose objects do not change while the watch
// runs (computed at request time, or fixed): the InitialEvents, then nothing until the client
// goes away or ctx ends.
func StaticWatch(ctx context.Context, options *metainternalversion.ListOptions, resourceVersion string, bookmark runtime.Object, objects ...runtime.Object) (watch.Interface, error) {
	events, err := InitialEvents(options, resourceVersion, bookmark, objects...)
	if err != nil {
		return nil, err
	}
	ch := make(chan watch.Event, len(events))
	for _, e := range events {
		ch <- e
	}
	w := watch.NewProxyWatcher(ch)
	go func() {
		select {
		case <-ctx.Done():
			w.Stop()
		case <-w.StopChan():
		}
	}()
	return w, nil
}

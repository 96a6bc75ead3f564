package server

import (
	"context"
	"testing"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// TestInitialEvents checks the start of a custom storage's watch for each kind of request
// client-go and kubectl make: a streaming list ends in the annotated bookmark, a plain watch
// from "0" or nothing lists the objects as ADDED, a watch from a version sends nothing.
func TestInitialEvents(t *testing.T) {
	yes := true
	obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "7"}}
	for _, c := range []struct {
		name    string
		options *metainternalversion.ListOptions
		want    []watch.EventType
	}{
		{"informer", &metainternalversion.ListOptions{SendInitialEvents: &yes, AllowWatchBookmarks: true, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}, []watch.EventType{watch.Added, watch.Bookmark}},
		{"streaming without bookmarks", &metainternalversion.ListOptions{SendInitialEvents: &yes}, []watch.EventType{watch.Added}},
		{"watch from nothing", &metainternalversion.ListOptions{AllowWatchBookmarks: true}, []watch.EventType{watch.Added}},
		{"watch from 0", &metainternalversion.ListOptions{ResourceVersion: "0"}, []watch.EventType{watch.Added}},
		{"no options", nil, []watch.EventType{watch.Added}},
		{"watch from a version", &metainternalversion.ListOptions{ResourceVersion: "7", AllowWatchBookmarks: true}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := StaticWatch(context.Background(), c.options, "7", &metav1.PartialObjectMetadata{}, obj)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			var got []watch.EventType
			var last runtime.Object
			for len(got) < len(c.want) {
				e := <-w.ResultChan()
				got, last = append(got, e.Type), e.Object
			}
			select {
			case e := <-w.ResultChan():
				t.Fatalf("events %v and then %v, want only %v", got, e.Type, c.want)
			default:
			}
			if len(got) > 0 && got[len(got)-1] == watch.Bookmark {
				m := last.(*metav1.PartialObjectMetadata)
				if m.ResourceVersion != "7" || m.Annotations[metav1.InitialEventsAnnotationKey] != "true" {
					t.Errorf("bookmark %+v, want resourceVersion 7 annotated %s", m.ObjectMeta, metav1.InitialEventsAnnotationKey)
				}
			}
		})
	}
}

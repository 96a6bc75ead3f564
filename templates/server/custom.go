package server

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apiserver/pkg/registry/rest"
)

// CheckVerbs fails unless storage, REST storage written by the project for a resource (path
// plural, +apigen:storage:custom) or a subresource (path plural/name,
// +apigen:subresource:custom), serves exactly the verbs its marker declares. The API server
// serves whatever interfaces the storage implements, so the check keeps the marker (and what
// clients generated from it expect) true; it runs when the server starts.
func CheckVerbs(path string, storage rest.Storage, declared ...string) error {
	served := servedVerbs(storage)
	if slices.Equal(served, declared) {
		return nil
	}
	marker := "+apigen:storage:custom"
	if strings.Contains(path, "/") {
		marker = "+apigen:subresource:custom"
	}
	return fmt.Errorf("the REST storage of %s serves the verbs [%s], but its %s marker declares [%s]; "+
		"implement the interfaces of the declared verbs (get: rest.Getter, list: rest.Lister, watch: rest.Watcher, "+
		"create: rest.Creater, update: rest.Updater, delete: rest.GracefulDeleter, deletecollection: rest.CollectionDeleter, "+
		"connect: rest.Connecter) and no others, or change the marker",
		path, strings.Join(served, " "), marker, strings.Join(declared, " "))
}

// servedVerbs are the verbs k8s.io/apiserver's installer serves for a storage, as discovery
// names them, sorted.
func servedVerbs(s rest.Storage) []string {
	var verbs []string
	add := func(verb string, ok bool) {
		if ok {
			verbs = append(verbs, verb)
		}
	}
	_, connecter := s.(rest.Connecter)
	_, creater := s.(rest.Creater)
	_, namedCreater := s.(rest.NamedCreater)
	_, deleter := s.(rest.GracefulDeleter)
	_, collectionDeleter := s.(rest.CollectionDeleter)
	_, lister := s.(rest.Lister)
	_, watcher := s.(rest.Watcher)
	_, getter := s.(rest.Getter)
	_, getterWithOptions := s.(rest.GetterWithOptions)
	_, patcher := s.(rest.Patcher)
	_, updater := s.(rest.Updater)
	add("connect", connecter)
	add("create", creater || namedCreater)
	add("delete", deleter)
	add("deletecollection", collectionDeleter)
	add("get", getter || getterWithOptions)
	add("list", lister)
	add("patch", patcher)
	add("update", updater)
	add("watch", watcher)
	return verbs
}

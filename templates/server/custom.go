package server

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apiserver/pkg/registry/rest"
)

// CheckVerbs fails unless storage, a subresource's REST storage written by the project, serves
// exactly the verbs its +apigen:subresource:custom marker declares. The API server serves
// whatever interfaces the storage implements, so the check keeps the marker (and what clients
// generated from it expect) true; it runs when the server starts.
func CheckVerbs(path string, storage rest.Storage, declared ...string) error {
	served := servedVerbs(storage)
	if slices.Equal(served, declared) {
		return nil
	}
	return fmt.Errorf("the REST storage of %s serves the verbs [%s], but its +apigen:subresource:custom marker declares [%s]; "+
		"implement the interfaces of the declared verbs (get: rest.Getter, create: rest.Creater, update: rest.Updater, "+
		"delete: rest.GracefulDeleter, connect: rest.Connecter) and no others, or change the marker",
		path, strings.Join(served, " "), strings.Join(declared, " "))
}

// servedVerbs are the verbs k8s.io/apiserver's installer serves for a subresource's storage,
// sorted.
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
	_, getter := s.(rest.Getter)
	_, getterWithOptions := s.(rest.GetterWithOptions)
	_, patcher := s.(rest.Patcher)
	_, updater := s.(rest.Updater)
	add("connect", connecter)
	add("create", creater || namedCreater)
	add("delete", deleter)
	add("get", getter || getterWithOptions)
	add("patch", patcher)
	add("update", updater)
	return verbs
}

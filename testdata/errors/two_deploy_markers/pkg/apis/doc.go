// Package apis is a test project.
//
// +apigen:deploy:namespace=toys
// +apigen:deploy:name=toys-server
package apis

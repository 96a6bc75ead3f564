// Package apis is a test project.
//
// +apigen:deploy:name=toys-server,image=
package apis

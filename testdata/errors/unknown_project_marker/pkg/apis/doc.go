// Package apis is a test project.
//
// +apigen:domain=example.com
// +apigen:deploi:name=toys-server
// +apigen:deploy:nmae=toys-server
package apis

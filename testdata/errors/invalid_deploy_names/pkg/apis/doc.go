// Package apis is a test project.
//
// +apigen:domain=example.com
// +apigen:deploy:namespace=Wardle_System,name=2fast
package apis

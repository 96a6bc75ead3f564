// This file was scaffolded by apigen and is yours to edit.

// Package apis holds the API groups this server serves, one directory per group and one per
// version: pkg/apis/<group>/<version>. New groups get the domain below
// (apigen new-api --group <group> makes <group>.example.com).
//
// +apigen:domain=example.com
package apis

// "go generate ./..." regenerates the project from here.
//
//go:generate apigen generate

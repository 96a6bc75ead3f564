// Package templates holds what apigen copies or renders into projects: the server runtime
// (server/, a real Go package compiled and tested here, copied verbatim) and the scaffold of
// user-owned files (scaffold/, text/template).
package templates

import "embed"

// Server is the source of the server runtime package and of its test support
// package server/servertest; see server/doc.go.
//
//go:embed server/*.go server/servertest/*.go
var Server embed.FS

// Scaffold holds the templates of user-owned files written by apigen init and new-api.
//
//go:embed scaffold
var Scaffold embed.FS

// Manifests holds the text/template sources of config/generated/*.yaml and of the
// cert-manager component in config/generated/cert-manager/, one template per file
// (<file>.tmpl), rendered by generators/manifests.
//
//go:embed manifests/*.yaml.tmpl manifests/cert-manager/*.yaml.tmpl manifests/monitoring/*.yaml.tmpl manifests/external-etcd/*.yaml.tmpl manifests/external-datastore/*.yaml.tmpl
var Manifests embed.FS

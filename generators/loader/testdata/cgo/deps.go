// Package cgo is a test project for the loader whose API types refer to a package that uses
// cgo.
package cgo

import _ "k8s.io/apimachinery/pkg/apis/meta/v1"

// Package typeerror is a test project for the loader.
package typeerror

import _ "k8s.io/apimachinery/pkg/apis/meta/v1"

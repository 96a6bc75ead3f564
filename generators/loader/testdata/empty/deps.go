// Package empty is a test project for the loader.
package empty

import _ "k8s.io/apimachinery/pkg/apis/meta/v1"

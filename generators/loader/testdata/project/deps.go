// Package project is a test project for the loader.
package project

import _ "k8s.io/apimachinery/pkg/apis/meta/v1"

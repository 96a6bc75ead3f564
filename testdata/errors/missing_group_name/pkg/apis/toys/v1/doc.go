// Package v1 has no group name.
package v1

// +groupName=
package v1

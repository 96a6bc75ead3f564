// Package v1 holds reviews: kinds a client creates to ask a question, answered in the
// response's status and never stored, as authentication.k8s.io's TokenReview is.
//
// +groupName=reviews.example.com
package v1

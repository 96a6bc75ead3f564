// Package e2e holds the end-to-end tests of apigen: they build the apigen binary and
// bin/kubectl, scaffold and generate a project in a temporary directory the way a newcomer
// does, build its API server, start it in local mode and drive it over real HTTPS with
// kubectl and client-go.
//
// Run with `go test ./test/e2e/` (a few minutes warm; -short skips it). Every process a
// test starts is stopped by that test; everything listens on 127.0.0.1.
package e2e

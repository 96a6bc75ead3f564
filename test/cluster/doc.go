// Package cluster starts the real control plane that aggregation tests and
// benchmarks run against: an etcd cluster and a kube-apiserver, built from
// pinned Go modules by hack/tools/build.sh, on 127.0.0.1 and free ports, with
// the certificates a kubeadm cluster would have (serving, client CA,
// front-proxy CA and proxy client, service-account keys).
//
// It is a library rather than test helpers so that hack/bench can use the same
// setup as test/e2e; every function returns errors instead of failing a test.
package cluster

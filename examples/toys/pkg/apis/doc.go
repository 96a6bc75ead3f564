// This file was scaffolded by apigen and is yours to edit.

// Package apis holds the API groups this server serves, one directory per group and one per
// version: pkg/apis/<group>/<version>. New groups get the domain below
// (apigen new-api --group <group> makes <group>.example.com).
//
// The cluster deployment (config/generated, and the server's certs command) takes its names
// from the deploy marker below: the namespace, the name of the Service, Deployment,
// ServiceAccount and ClusterRole (the serving certificate's Secret is <name>-serving-cert), and
// the image. Every argument is optional; the values below are the defaults.
//
// The clients marker turns the generated typed clientset, listers, informers and apply
// configurations on or off and says where they go (<dir>/clientset, <dir>/listers,
// <dir>/informers, <dir>/applyconfiguration).
//
// The server stores in etcd. To offer a SQL database instead (SQLite, Postgres or MySQL through
// kine: --datastore-endpoint and config/generated/external-datastore), add +apigen:sql=true
// below and run the go get that apigen generate then names; it makes the server larger.
//
// +apigen:domain=example.com
// +apigen:deploy:namespace=toys-system,name=toys-apiserver,image=toys-apiserver:latest
// +apigen:clients:enabled=true,dir=pkg/generated
package apis

// "go generate ./..." regenerates the project from here.
//
//go:generate apigen generate

# apigen's own build. `make test` is what CI runs (.ci/run).
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c

GO ?= go
BIN := $(CURDIR)/bin
EXAMPLES := $(wildcard examples/*)

.PHONY: all build tools test test-examples test-unit lint examples verify-examples tutorials demo bench bench-kapi bench-server bench-crd bench-dv bench-storage bench-scale bench-patches clean

all: build

build: ## Build bin/apigen.
	$(GO) build -o $(BIN)/apigen ./cmd/apigen

# Two lines of builds side by side: each go build leaves a core idle while it downloads modules
# and links, and the tools of one line share most of their packages (k8s.io/kubernetes', etcd's).
KUBERNETES_TOOLS := kube-apiserver kube-controller-manager clusterrole-aggregator
OTHER_TOOLS := kubectl etcd etcdctl etcdutl controller-gen
tools: ## Build the real binaries the tests drive (bin/kubectl, bin/etcd, bin/etcdctl, bin/etcdutl, bin/kube-apiserver, bin/kube-controller-manager, bin/controller-gen, bin/clusterrole-aggregator), from pinned Go modules.
	@(for t in $(KUBERNETES_TOOLS); do hack/tools/build.sh $$t || exit 1; done) & k8s=$$!; \
	(for t in $(OTHER_TOOLS); do hack/tools/build.sh $$t || exit 1; done) & other=$$!; \
	failed=0; wait $$k8s || failed=1; wait $$other || failed=1; exit $$failed

lint: ## go vet and gofmt over apigen itself.
	$(GO) vet ./...
	$(GO) vet -tags apigen_etcdonly ./templates/server/...
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^examples/' || true)); \
	if [[ -n "$$unformatted" ]]; then echo "not gofmt-clean:"; echo "$$unformatted"; exit 1; fi

test: tools lint test-examples ## Everything: unit, golden and end-to-end tests (real etcd, real kubectl), each example's own tests, the -race run, then the latency test alone (hack/test.sh).
	GO=$(GO) hack/test.sh

test-examples: ## Each example's own tests, as its users run them (go test ./... in the example).
	@for ex in $(EXAMPLES); do echo "go test ./... in $$ex"; (cd $$ex && $(GO) vet ./... && $(GO) test -count=1 ./...); done

test-unit: ## Quick tests only (no end-to-end).
	$(GO) test -short ./...

# The loader and the pipeline start goroutines, and runs may go side by side in one process (the
# command driven as a library). In -short mode their tests still reach every goroutine they start
# and skip the loads that only repeat others, so that this takes minutes, not half an hour, and CI
# can run it beside the other packages' tests without lengthening its longest line (test/e2e).
.PHONY: test-race
test-race: ## The loader's and the pipeline's tests under the race detector (go test -race -short; a few minutes).
	$(GO) test -race -short -count=1 -timeout=30m ./generators/loader ./generators/pipeline

examples: build ## Regenerate every example with the apigen just built.
	@for ex in $(EXAMPLES); do (cd $$ex && $(BIN)/apigen generate); done

verify-examples: build ## Fail when an example's generated files are stale.
	@for ex in $(EXAMPLES); do (cd $$ex && $(BIN)/apigen verify); done

tutorials: build ## Remake examples/toys, the tutorial project, by running the commands of docs/quickstart.md, docs/tutorials/first-api.md and versions.md (their server listens on 127.0.0.1:8443); TestTutorials fails when they differ.
	hack/tools/build.sh kubectl
	hack/tutorials.sh

demo: build ## Regenerate examples/wardle, start it on embedded etcd and talk to it with kubectl.
	@# Only kubectl: etcd is embedded in the server, and kube-apiserver (minutes to build) is for the aggregation tests.
	hack/tools/build.sh kubectl
	hack/demo.sh

bench: build ## Generation speed and memory vs the upstream generators, by size, on every k8s.io/api group (bench-kapi), then bench-server (not part of test; see docs/performance.md).
	hack/tools/codegen/build.sh
	hack/bench/generate.sh 5
	hack/bench/scale.sh 3
	hack/bench/kapi.sh 3
	hack/bench/server.sh 6

bench-kapi: build ## apigen generate and verify on the largest real project, every k8s.io/api group but core (TestKubernetesAPIGroups', test/kapi), a first run then RUNS more (see docs/performance.md).
	hack/bench/kapi.sh 3

bench-server: ## The generated server vs k8s.io/sample-apiserver under load: throughput, latency, start-up, RSS (see docs/performance.md).
	hack/bench/server.sh 6

bench-crd: ## The same kind as a CRD, through the aggregation proxy to the generated server, and direct; then protobuf against JSON against a CRD (see docs/performance.md).
	hack/bench/server.sh 6 -crd
	hack/bench/server.sh 3 -protobuf

bench-storage: ## The generated server on embedded etcd, external etcd, SQLite, Postgres and MariaDB side by side, every store durable at each commit (see docs/performance.md).
	hack/bench/server.sh 4 -datastores -durable

# 10^6 objects: make bench-scale SCALE_COUNTS=10000,100000,1000000
SCALE_COUNTS ?= 10000,100000
bench-scale: ## The scale envelope: wardle's kind at SCALE_COUNTS objects on embedded etcd, an etcd cluster and Postgres, and as a CRD (see docs/performance.md).
	hack/bench/server.sh 1 -scale -scale-counts $(SCALE_COUNTS)

bench-patches: build ## The upstream patches under hack/patches, without and with, on wardle and 100 kinds (see docs/performance.md).
	hack/bench/upstream-patches.sh 5

bench-dv: ## One kind's rules as +k8s: tags vs as kubebuilder markers: create/update CPU per request (see docs/performance.md).
	hack/bench/server.sh 6 -dv

clean:
	rm -rf $(BIN)

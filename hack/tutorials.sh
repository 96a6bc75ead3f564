#!/usr/bin/env bash
# Makes examples/toys, the tutorial project, by running the commands of docs/quickstart.md,
# docs/tutorials/first-api.md and docs/tutorials/versions.md as a reader would (hack/tutorials/main.go), with bin/apigen and
# bin/kubectl. Their local server listens on 127.0.0.1:8443, as the pages say.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./hack/tutorials

package kube

import "github.com/apigen-dev/apigen/generators/engine"

// OpenAPIWholeUniverse is OpenAPI as openapi-gen's own main runs it: over the whole load.
func OpenAPIWholeUniverse() engine.Upstream { return openAPI{wholeUniverse: true} }

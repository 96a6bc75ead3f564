package server

import (
	"errors"
	"net/http"

	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/healthz"
)

// frontProxyCACheck is the readyz check that holds a replica out of its Service
// until it can authenticate kube-apiserver's proxy.
const frontProxyCACheck = "front-proxy-ca"

// readyWithFrontProxyCA makes /readyz fail while the cluster has a front proxy
// and the server has not loaded its CA yet.
//
// Delegated authentication reads the front proxy's header names from
// kube-system/extension-apiserver-authentication before the server starts, but
// the CA beside them comes from an informer that fills only after serving has
// begun: in between, every request kube-apiserver proxies is taken for
// system:anonymous and refused with 403. A replica that answered /readyz then
// would be added to its Service's endpoints and fail its first requests.
func readyWithFrontProxyCA(config *genericapiserver.Config) {
	if rh := config.Authentication.RequestHeaderConfig; rh != nil {
		config.AddReadyzChecks(healthz.NamedCheck(frontProxyCACheck, func(*http.Request) error {
			return frontProxyCALoaded(rh)
		}))
	}
}

// frontProxyCALoaded is nil once rh can verify the front proxy's certificate,
// or when the cluster names no front proxy (no username headers).
func frontProxyCALoaded(rh *authenticatorfactory.RequestHeaderConfig) error {
	if len(rh.UsernameHeaders.Value()) == 0 {
		return nil
	}
	if _, ok := rh.CAContentProvider.VerifyOptions(); !ok {
		return errors.New("the front proxy's CA (requestheader-client-ca-file in " +
			"kube-system/extension-apiserver-authentication) is not loaded yet")
	}
	return nil
}

'use strict';
// rest sends one REST request to parse-server with the master key through the Parse SDK's own request path
// (Parse.CoreManager's REST controller: in-process with parse-server's directAccess, else HTTP to serverURL), for
// the writes the SDK's objects refuse to make (a _Session's expiresAt is read-only in Parse.Session). It resolves to
// parse-server's answer; a refusal rejects with the Parse.Error.
function rest(Parse, method, path, body) {
  const controller = Parse.CoreManager && typeof Parse.CoreManager.getRESTController === 'function' ? Parse.CoreManager.getRESTController() : null;
  if (!controller || typeof controller.request !== 'function') {
    return Promise.reject(new Error("moralis-go-server: the Parse SDK has no REST controller (Parse.CoreManager.getRESTController)"));
  }
  return controller.request(method, path, body, { useMasterKey: true });
}

module.exports = { rest };

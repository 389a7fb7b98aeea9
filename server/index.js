'use strict';
// moralis-go-server: the server half of moralis-go, mounted in the app's own parse-server. Two pieces:
//
//   - the wallet auth adapters, given to ParseServer as its `auth` option:
//       const moralisGo = require('moralis-go-server');
//       new ParseServer({ ..., auth: { ...moralisGo.authAdapters() } });
//   - the cloud code (sign-in tickets, the Go endpoint's sign-in and session-record functions, getServerTime,
//     the chain-data functions, moralisGoServerInfo), loaded from the app's own cloud file:
//       // cloud/main.js
//       require('moralis-go-server/cloud');             // default options, or:
//       require('moralis-go-server').registerCloud({ idempotencyPurgeSeconds: 30 });
//
// And for a deployment of several instances, the LiveQuery pub/sub over Redis (liveQueryRedis). README.md has the
// whole set-up. Requiring this file loads nothing of parse-server.
const auth = require('./lib/auth');

// authAdapters returns the `auth` option entries of the two wallet providers, moralisEth and moralisSol.
function authAdapters() {
  return {
    moralisEth: { module: auth.moralisEth },
    moralisSol: { module: auth.moralisSol },
  };
}

// registerCloud defines the package's cloud code with options (cloud/register.js); call it from the app's cloud file.
function registerCloud(options) {
  return require('./cloud/register').registerCloud(options);
}

// liveQueryRedis returns LiveQuery options that send the pub/sub through the Redis at redisURL (lib/pubsub.js):
// spread it into liveQuery and liveQueryServerOptions.
function liveQueryRedis(redisURL, options) {
  return require('./lib/pubsub').liveQueryRedis(redisURL, options);
}

// closeLiveQueryClients closes every websocket of a parse-server LiveQuery server (code 1012) so its clients
// reconnect and catch up (lib/pubsub.js): liveQueryRedis's onSubscriberResume.
function closeLiveQueryClients(liveQueryServer, log) {
  return require('./lib/pubsub').closeLiveQueryClients(liveQueryServer, log);
}

// breakPrivateModules makes the named private parse-server modules (Config, triggers, Auth, RestWrite, RedisPubSub)
// fail the package's check, as a parse-server upgrade that changed them would: for tests only. Call it before
// registerCloud.
function breakPrivateModules(names) {
  require('./lib/private').breakModules(names);
}

module.exports = {
  authAdapters,
  registerCloud,
  liveQueryRedis,
  closeLiveQueryClients,
  breakPrivateModules,
  moralisEth: auth.moralisEth,
  moralisSol: auth.moralisSol,
  hashPersonalMessage: auth.hashPersonalMessage,
  recoverPersonalSigner: auth.recoverPersonalSigner,
  verifySolana: auth.verifySolana,
  endpointTicketMAC: require('./lib/tickets').endpointTicketMAC,
  version: require('./package.json').version,
};

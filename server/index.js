'use strict';
// moralis-go-server: the server half of moralis-go, mounted in the app's own parse-server. Two pieces:
//
//   - the wallet auth adapters, given to ParseServer as its `auth` option:
//       const moralisGo = require('moralis-go-server');
//       new ParseServer({ ..., auth: { ...moralisGo.authAdapters() } });
//   - the cloud code (sign-in tickets, the Go endpoint's sign-in and session-record functions, getServerTime,
//     the chain-data functions), loaded from the app's own cloud file:
//       // cloud/main.js
//       require('moralis-go-server/cloud');
//
// The rest are building blocks a deployment may use: the LiveQuery Redis pub/sub adapter (safeRedisPubSub) and the
// _Idempotency purge (scheduleIdempotencyPurge). README.md has the whole set-up.
const auth = require('./lib/auth');
const tickets = require('./lib/tickets');
const txmark = require('./lib/txmark');
const { safeRedisPubSub } = require('./lib/pubsub');
const { purgeIdempotency, scheduleIdempotencyPurge } = require('./lib/idempotency');

// authAdapters returns the `auth` option entries of the two wallet providers, moralisEth and moralisSol.
function authAdapters() {
  return {
    moralisEth: { module: auth.moralisEth },
    moralisSol: { module: auth.moralisSol },
  };
}

// ensureClasses sets up the package's classes while parse-server starts (call it from the `cloud` option, with
// parse-server's Config): the wallet sign-in classes with master-key-only permissions, and MoralisGoTxMark, the
// Go SDK's atomic-batch marks (feature txMark, on once it is set up). Idempotent.
async function ensureClasses(config) {
  await tickets.ensureClasses(config);
  await txmark.ensureClass(config);
}

module.exports = {
  authAdapters,
  moralisEth: auth.moralisEth,
  moralisSol: auth.moralisSol,
  hashPersonalMessage: auth.hashPersonalMessage,
  recoverPersonalSigner: auth.recoverPersonalSigner,
  verifySolana: auth.verifySolana,
  ensureClasses,
  safeRedisPubSub,
  purgeIdempotency,
  scheduleIdempotencyPurge,
  version: require('./package.json').version,
};

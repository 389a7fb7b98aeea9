'use strict';
// moralisGoServerInfo: what this backend's moralis-go server package offers, for the Go SDK and the endpoint to
// learn once (contract point 2). Any key may call it:
//   {name: "moralis-go-server", version, features: [names of the features that are on]}
// and with the master key also parseServer (its version), database ("postgres" | "mongo" | "unknown") and off
// ({feature: why it is off}). A backend without the function answers 141 "Invalid function": a stock
// parse-server, which the Go side serves at reduced guarantees.
const features = require('../lib/features');

const NAME = 'moralis-go-server';
const VERSION = require('../package.json').version;

function parseServerVersion() {
  try {
    return require('parse-server/package.json').version;
  } catch (err) {
    return 'unknown';
  }
}

function databaseKind(config) {
  const adapter = config && config.database && config.database.adapter;
  const name = adapter && adapter.constructor ? adapter.constructor.name : '';
  if (/postgres/i.test(name)) {
    return 'postgres';
  }
  if (/mongo/i.test(name)) {
    return 'mongo';
  }
  return 'unknown';
}

Parse.Cloud.define('moralisGoServerInfo', req => {
  const out = { name: NAME, version: VERSION, features: features.list() };
  if (req.master) {
    out.parseServer = parseServerVersion();
    out.database = databaseKind(req.config);
    out.off = features.offReasons();
  }
  return out;
});

'use strict';
// Cloud code of the local stack's app. parse-server loads this file; it mounts the moralis-go-server package's cloud
// code as a user's app does (one call from the app's own cloud file), then loads every other *.js file in this
// folder (in name order): the app's own functions and triggers the tests use. `Parse` is the global that
// parse-server installs before loading cloud code.
const fs = require('fs');
const path = require('path');

// The package's options from the stack's environment (up.sh): the _Idempotency purge every 5 s instead of every
// minute (the smoke test waits for it), and the tests' own ticket bounds when they set them.
const envNumber = (name, fallback) => {
  const v = process.env[name];
  if (v === undefined || v === '') {
    return fallback;
  }
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) {
    throw new Error(`devstack app: ${name}=${v} is not a non-negative number`);
  }
  return n;
};
require('moralis-go-server').registerCloud({
  idempotencyPurgeSeconds: envNumber('DEVSTACK_IDEMPOTENCY_PURGE_SECONDS', 5),
  ticketTtlSeconds: envNumber('DEVSTACK_TICKET_TTL_MS', 300000) / 1000 || undefined,
  ticketsPerClient: envNumber('DEVSTACK_TICKET_MAX_PER_CLIENT', 20) || undefined,
  ticketsOutstanding: envNumber('DEVSTACK_TICKET_MAX_OUTSTANDING', 10000) || undefined,
});

Parse.Cloud.define('echo', req => ({
  params: req.params,
  user: req.user ? req.user.id : null,
  master: req.master === true,
}));

Parse.Cloud.define('fail', () => {
  throw new Parse.Error(Parse.Error.SCRIPT_FAILED, 'intentional failure');
});

// A job that records a progress message and succeeds; it returns nothing, so the _JobStatus row keeps
// that message (a returned string would replace it).
Parse.Cloud.job('simpleJob', async req => {
  await req.message('simpleJob ran');
});

for (const name of fs.readdirSync(__dirname).sort()) {
  if (name.endsWith('.js') && name !== path.basename(__filename)) {
    require(path.join(__dirname, name));
  }
}

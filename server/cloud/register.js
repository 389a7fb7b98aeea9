'use strict';
// registerCloud: the package's cloud code, defined on the global Parse that parse-server installs before it loads the
// app's cloud file. See README.md ("Mount") and index.js.
const tickets = require('../lib/tickets');
const setup = require('../lib/setup');
const idempotency = require('../lib/idempotency');
const private_ = require('../lib/private');
const txmark = require('../lib/txmark');
const pkg = require('../package.json');

// FEATURES are the names moralisGoServerInfo reports (the contract with the Go SDK and endpoint).
const FEATURES = ['tickets', 'signIn', 'recordSession', 'serverTime', 'web3', 'idempotencyPurge', 'sessionIndexes', 'txMark', 'livequeryRedis'];

// MIN_PARSE_SERVER is the oldest parse-server line the package runs on (DEPLOY.md, "Supported parse-server versions").
const MIN_PARSE_SERVER = '5.6.0';

// DEFAULTS of registerCloud's options.
const DEFAULTS = {
  ticketTtlSeconds: 300,
  ticketsPerClient: 20,
  ticketsOutstanding: 10000,
  idempotencyPurgeSeconds: 60,
};

let registered = false;

// parseServerVersion returns the running parse-server's version (its package.json), or '' when it cannot be read.
function parseServerVersion() {
  try {
    return String(require('parse-server/package.json').version || '');
  } catch (err) {
    return '';
  }
}

// olderThan reports whether version a (x.y.z) is older than b.
function olderThan(a, b) {
  const pa = String(a).split(/[.-]/).map(Number);
  const pb = String(b).split(/[.-]/).map(Number);
  for (let i = 0; i < 3; i++) {
    if ((pa[i] || 0) !== (pb[i] || 0)) {
      return (pa[i] || 0) < (pb[i] || 0);
    }
  }
  return false;
}

// checkOptions returns options with the defaults filled in, or throws a TypeError naming the bad option.
function checkOptions(options) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError('moralis-go-server: registerCloud takes an object of options');
  }
  const known = new Set([...Object.keys(DEFAULTS), 'log']);
  for (const k of Object.keys(options)) {
    if (!known.has(k)) {
      throw new TypeError(`moralis-go-server: unknown option ${k} (known: ${[...known].join(', ')})`);
    }
  }
  const out = { ...DEFAULTS };
  const positive = (k, integer) => {
    if (options[k] === undefined) {
      return;
    }
    const v = options[k];
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v))) {
      throw new TypeError(`moralis-go-server: ${k} must be a positive ${integer ? 'integer' : 'number'}, not ${JSON.stringify(v)}`);
    }
    out[k] = v;
  };
  positive('ticketTtlSeconds', false);
  positive('ticketsPerClient', true);
  positive('ticketsOutstanding', true);
  if (options.idempotencyPurgeSeconds !== undefined) {
    const v = options.idempotencyPurgeSeconds;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw new TypeError(`moralis-go-server: idempotencyPurgeSeconds must be a number of seconds (0: off), not ${JSON.stringify(v)}`);
    }
    out.idempotencyPurgeSeconds = v;
  }
  if (options.log !== undefined && typeof options.log !== 'function') {
    throw new TypeError('moralis-go-server: log must be a function of one line of text');
  }
  out.log = options.log || (line => console.error(line));
  return out;
}

// registerCloud defines the package's cloud code (once per process): the functions getServerTime,
// moralisAuthRequestMessage, moralisGoRecordSession, moralisGoSignIn, moralisGoServerInfo, moralisGoTxApplied,
// moralisGoCheckWrites and the chain-data functions; triggers that leave the package's classes to the master key
// (and check the atomic-batch marks); and, in the background, the classes' permissions and indexes, the _Session
// indexes, the purge of expired tickets, marks and _Idempotency rows. It returns
// {status, ready}: status() is what moralisGoServerInfo answers the master key, ready resolves once the classes and
// indexes are made. It throws at once (parse-server then fails to start) when Parse is not parse-server's, when
// parse-server is older than MIN_PARSE_SERVER, on a bad option, and when called a second time.
//
// options: ticketTtlSeconds (300), ticketsPerClient (20), ticketsOutstanding (10000), idempotencyPurgeSeconds (60;
// 0: off), log (a function of one line; default console.error).
function registerCloud(options = {}) {
  const Parse = global.Parse;
  if (!Parse || !Parse.Cloud || typeof Parse.Cloud.define !== 'function' || typeof Parse.Cloud.beforeSave !== 'function') {
    throw new Error("moralis-go-server: no parse-server cloud code here: load registerCloud (or require('moralis-go-server/cloud')) from the app's cloud file");
  }
  const version = parseServerVersion();
  if (!version || olderThan(version, MIN_PARSE_SERVER)) {
    throw new Error(`moralis-go-server ${pkg.version} needs parse-server ${MIN_PARSE_SERVER} or later; this server runs parse-server ${version || '(unknown version)'}`);
  }
  const opts = checkOptions(options);
  if (registered) {
    throw new Error("moralis-go-server: the cloud code is registered already (require('moralis-go-server/cloud') or registerCloud(), once per process)");
  }
  registered = true;
  const log = opts.log;
  const on = new Set();
  const off = {};
  const turn = (feature, reason) => {
    if (reason) {
      on.delete(feature);
      off[feature] = reason;
    } else {
      delete off[feature];
      on.add(feature);
    }
  };

  // The package's classes are the master key's: its class-level permissions say so once set-up has run, and until
  // then (and whatever a later schema change says) these triggers refuse everybody else, with parse-server's own
  // answer to a permission refusal.
  const masterOnly = action => req => {
    if (!req.master) {
      throw new Parse.Error(Parse.Error.OPERATION_FORBIDDEN, `Permission denied for action ${action} on class ${req.object ? req.object.className : req.query.className}.`);
    }
  };
  for (const cls of [setup.TICKET_CLASS, setup.NONCE_CLASS, setup.SESSION_CLASS]) {
    Parse.Cloud.beforeSave(cls, masterOnly('create'));
    Parse.Cloud.beforeFind(cls, masterOnly('find'));
  }

  // The Go SDK's atomic-batch proof (lib/txmark.js): the marks' checks, their reads left to the master key, the two
  // functions (any key), the purge of expired marks. txMark is reported on once the set-up made the class with its
  // fields (a transaction never adds a field).
  Parse.Cloud.beforeSave(txmark.CLASS, req => txmark.beforeSave(req));
  Parse.Cloud.beforeFind(txmark.CLASS, masterOnly('find'));
  // moralisGoTxApplied({mark}) -> {applied: bool}: whether the atomic batch that carried mark committed; final (the
  // mark is fenced), the same answer when called again.
  Parse.Cloud.define('moralisGoTxApplied', req => txmark.applied(req.params));
  // moralisGoCheckWrites({requests: [{method, path, body}]}) -> {index, code, error} of the first write the class
  // schema refuses (parse-server's own code and text), or {}; it checks only writes the caller's permissions allow.
  Parse.Cloud.define('moralisGoCheckWrites', req => txmark.checkWrites(req));
  txmark.startPurging();

  Parse.Cloud.define('getServerTime', () => ({ dateTime: new Date().toISOString() }));
  turn('serverTime', '');

  require('./authticket').define(Parse, {
    ticketTtlMs: opts.ticketTtlSeconds * 1000,
    ticketsPerClient: opts.ticketsPerClient,
    ticketsOutstanding: opts.ticketsOutstanding,
  });
  const databaseOf = () => {
    const config = private_.config(Parse.applicationId);
    return config && config.database && typeof config.database.destroy === 'function' ? config.database : null;
  };
  tickets.startPurging(Parse, databaseOf);
  turn('tickets', '');

  require('./authsession').define(Parse);
  turn('recordSession', '');

  const signInOff = require('./authsignin').define(Parse, { parseServerVersion: version, log });
  turn('signIn', signInOff);

  require('./web3.gen');
  turn('web3', '');

  turn('livequeryRedis', private_.featureOff('livequeryRedis'));

  // _Idempotency: purged here on PostgreSQL, by the database on MongoDB, else one line says what to do.
  const config = private_.config(Parse.applicationId);
  const database = config ? idempotency.databaseKind(config) : 'unknown';
  const plan = idempotency.plan(config, private_.featureOff('idempotencyPurge'));
  if (plan.mode === 'purge' && opts.idempotencyPurgeSeconds === 0) {
    plan.mode = 'off';
    plan.reason = 'turned off (idempotencyPurgeSeconds: 0): call idempotency_delete_expired_records() from cron';
  }
  if (plan.mode === 'purge') {
    idempotency.schedulePurge(() => private_.config(Parse.applicationId), opts.idempotencyPurgeSeconds * 1000, log);
  }
  turn('idempotencyPurge', plan.mode === 'off' ? plan.reason : '');

  // The classes and indexes, through the schema API once the server answers it (runSetup tries until then).
  turn('sessionIndexes', 'not made yet: parse-server has not answered the schema API');
  turn('txMark', `not made yet: ${txmark.CLASS} is made once parse-server answers the schema API`);
  const started = Date.now();
  const ready = setup
    .runSetup(
      async () => {
        await setup.ensureClasses(Parse);
        return setup.ensureSessionIndexes(Parse);
      },
      {
        onError: (err, attempt) => {
          if (attempt > 3) {
            turn('sessionIndexes', `not made: ${err && err.message}`);
            turn('txMark', `${txmark.CLASS} not made: ${err && err.message}`);
          }
          if (attempt === 4 || attempt % 20 === 0) {
            log(`moralis-go-server: making the package's classes and the _Session indexes failed ${attempt} times, trying again: ${err && err.message}`);
          }
        },
      }
    )
    .promise.then(added => {
      turn('sessionIndexes', '');
      turn('txMark', '');
      if (added.length > 0) {
        log(`moralis-go-server: made the _Session indexes ${added.join(', ')} after ${Date.now() - started} ms`);
      }
    });

  const status = () => ({
    name: pkg.name,
    version: pkg.version,
    features: FEATURES.filter(f => on.has(f)),
    parseServer: version,
    database,
    off: { ...off },
  });

  Parse.Cloud.define('moralisGoServerInfo', req => {
    const s = status();
    if (req.master) {
      return s;
    }
    return { name: s.name, version: s.version, features: s.features };
  });

  const offList = Object.entries(off).filter(([f]) => f !== 'sessionIndexes' && f !== 'txMark');
  log(
    `moralis-go-server ${pkg.version} on parse-server ${version} (${database}): ` +
      (offList.length ? `off: ${offList.map(([f, r]) => `${f} (${r})`).join('; ')}` : 'every feature on')
  );
  return { status, ready };
}

// isRegistered reports whether registerCloud ran in this process.
function isRegistered() {
  return registered;
}

module.exports = { registerCloud, isRegistered, FEATURES, MIN_PARSE_SERVER, DEFAULTS, olderThan, checkOptions };

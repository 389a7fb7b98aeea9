'use strict';
// The one place the package reaches parse-server's private modules (parse-server/lib/...). Everything else in the
// package uses parse-server's public API (Parse.Cloud, Parse.Query and Parse.Object with the master key,
// Parse.Schema, the auth adapter interface). A few features cannot: the one-request sign-in runs the app's
// beforeLogin trigger and writes the session as parse-server's login does, the _Idempotency purge and the exact
// once consumption of the endpoint's tickets write through parse-server's database controller, and the LiveQuery
// pub/sub wraps parse-server's Redis adapter. Each module is loaded and its shape checked once, when the package's
// cloud code is registered (or when the pub/sub adapter is made); a module that is missing or changed turns off the
// features that need it, with a reason (moralisGoServerInfo's "off", and one log line), and the package's calls
// take their public-API way instead of failing.
//
// Tests break modules on purpose with breakModules (the local stack's DEVSTACK_BREAK_PRIVATE): a broken module
// fails its check as a changed one would.

// MODULES: each private module, by the name tests use, with its path and its check (what the package uses of it).
// check(m) returns '' when the module has that shape, else what is missing.
const MODULES = {
  Config: {
    path: 'parse-server/lib/Config',
    check: m => (m && typeof m.get === 'function' ? '' : 'Config.get missing'),
  },
  triggers: {
    path: 'parse-server/lib/triggers',
    check: m => {
      const missing = ['triggerExists', 'maybeRunTrigger', 'inflate'].filter(f => !m || typeof m[f] !== 'function');
      if (!m || !m.Types || typeof m.Types.beforeLogin !== 'string' || typeof m.Types.afterSave !== 'string') {
        missing.push('Types.beforeLogin/afterSave');
      }
      return missing.length ? `${missing.join(', ')} missing` : '';
    },
  },
  Auth: {
    path: 'parse-server/lib/Auth',
    check: m => {
      const missing = ['Auth', 'checkIfUserHasProvidedConfiguredProvidersForLogin'].filter(f => !m || typeof m[f] !== 'function');
      return missing.length ? `${missing.join(', ')} missing` : '';
    },
  },
  RestWrite: {
    path: 'parse-server/lib/RestWrite',
    check: m => (typeof m === 'function' && typeof m.createSession === 'function' ? '' : 'RestWrite.createSession missing'),
  },
  RedisPubSub: {
    path: 'parse-server/lib/Adapters/PubSub/RedisPubSub',
    check: m => {
      const r = m && m.RedisPubSub;
      return r && typeof r.createPublisher === 'function' && typeof r.createSubscriber === 'function'
        ? ''
        : 'RedisPubSub.createPublisher/createSubscriber missing';
    },
  },
};

// FEATURE_MODULES: the private modules each feature needs.
const FEATURE_MODULES = {
  signIn: ['Config', 'triggers', 'Auth', 'RestWrite'],
  idempotencyPurge: ['Config'],
  endpointTicketsExactlyOnce: ['Config'],
  livequeryRedis: ['RedisPubSub'],
};

const broken = new Set();
const loaded = new Map(); // name -> {module, reason}

// breakModules makes the named modules (keys of MODULES) fail their check from now on, as if parse-server had
// changed them: for tests that show the features degrade instead of failing. Unknown names are an error.
function breakModules(names) {
  for (const name of names) {
    if (!MODULES[name]) {
      throw new Error(`moralis-go-server: no private module named ${JSON.stringify(name)} (known: ${Object.keys(MODULES).join(', ')})`);
    }
    broken.add(name);
    loaded.delete(name);
  }
}

// load returns {module, reason}: the module when it loads and has the shape the package uses (reason ''), else
// module null and why.
function load(name) {
  if (loaded.has(name)) {
    return loaded.get(name);
  }
  const spec = MODULES[name];
  let result;
  if (broken.has(name)) {
    result = { module: null, reason: `${spec.path} changed: ${spec.check({}) || 'broken'} (broken on purpose: DEVSTACK_BREAK_PRIVATE)` };
  } else {
    let m;
    try {
      m = require(spec.path);
    } catch (err) {
      result = { module: null, reason: `${spec.path} cannot be loaded: ${err && err.code ? err.code : err && err.message}` };
    }
    if (!result) {
      const missing = spec.check(m);
      result = missing ? { module: null, reason: `${spec.path} changed: ${missing}` } : { module: m, reason: '' };
    }
  }
  loaded.set(name, result);
  return result;
}

// get returns the module, or null when it is missing or changed.
function get(name) {
  return load(name).module;
}

// featureOff returns '' when every private module of feature is usable, else the reason it is off.
function featureOff(feature) {
  for (const name of FEATURE_MODULES[feature] || []) {
    const { reason } = load(name);
    if (reason) {
      return reason;
    }
  }
  return '';
}

// config returns parse-server's Config of the app (Config.get(appId)), or null when lib/Config is unusable or the
// app is not configured (yet).
function config(appId) {
  const C = get('Config');
  if (!C || !appId) {
    return null;
  }
  try {
    return C.get(appId) || null;
  } catch (err) {
    return null;
  }
}

module.exports = { MODULES, FEATURE_MODULES, breakModules, load, get, featureOff, config };

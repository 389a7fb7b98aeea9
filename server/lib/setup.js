'use strict';
// The classes, permissions and indexes the package needs, made with parse-server's public schema API (Parse.Schema,
// master key), so they go through whatever database adapter the server runs (PostgreSQL or MongoDB):
//   - MoralisAuthTicket, MoralisAuthNonce, MoralisAuthSession: created when missing, missing fields added,
//     class-level permissions set to the master key alone, their indexes made;
//   - MoralisGoTxMark (the Go SDK's atomic-batch marks, txmark.js): the same, public create only;
//   - _Session: indexes on sessionToken, installationId and user. parse-server on PostgreSQL indexes none of them
//     (only objectId), and MongoDB's adapter none either: every request with a session token, every login's delete
//     of an installation's earlier sessions and the endpoint's session record read the whole table (41,772 rows
//     after a day of tests here: about 9 ms of PostgreSQL CPU per sign-in at 100 sign-ins/s).
// Parse.Schema needs the server to answer requests, which it does only once it has started: runSetup tries again,
// with a growing pause, until it succeeds. Until then the classes are guarded by the package's triggers (register.js),
// so no client can create or read them in the meantime.

const TICKET_CLASS = 'MoralisAuthTicket';
const NONCE_CLASS = 'MoralisAuthNonce';
const SESSION_CLASS = 'MoralisAuthSession';
const txmark = require('./txmark');
const TXMARK_CLASS = txmark.CLASS;

// Class-level permissions that leave every operation to the master key.
const MASTER_ONLY = {
  find: {},
  count: {},
  get: {},
  create: {},
  update: {},
  delete: {},
  addField: {},
  protectedFields: {},
};

// CLASSES: fields (parse-server types), class-level permissions and indexes of each class the package owns. On
// PostgreSQL an index name is one per database, not per class (parse-server's adapter makes it with CREATE INDEX IF
// NOT EXISTS, which then quietly makes nothing): a new index is named after its class.
const CLASSES = {
  [TICKET_CLASS]: {
    fields: { secret: 'String', expiresAt: 'Date', chain: 'String', address: 'String', message: 'String', contract: 'Boolean', public: 'Boolean', ip: 'String', claim: 'String' },
    clp: MASTER_ONLY,
    // The public function counts the unexpired tickets of a client address; an endpoint ticket's claim is found by
    // its id (tickets.js); the purge finds the expired rows by expiresAt (every minute, on every instance: without
    // the index each purge read the whole table).
    indexes: { ip_1: { ip: 1 }, claim_1: { claim: 1 }, MoralisAuthTicket_expiresAt: { expiresAt: 1 } },
  },
  [NONCE_CLASS]: {
    fields: { secret: 'String', expiresAt: 'Date', chain: 'String', address: 'String', message: 'String' },
    clp: MASTER_ONLY,
    indexes: { MoralisAuthNonce_expiresAt: { expiresAt: 1 } },
  },
  [SESSION_CLASS]: {
    fields: { key: 'String', expiresAt: 'Date', startedAt: 'Date', session: 'String', chain: 'String', address: 'String', chainId: 'String' },
    clp: MASTER_ONLY,
    // The endpoint looks its session records up by key; the purge finds the expired ones by expiresAt.
    indexes: { key_1: { key: 1 }, MoralisAuthSession_expiresAt: { expiresAt: 1 } },
  },
  // The Go SDK's atomic-batch marks (txmark.js): public create only.
  [TXMARK_CLASS]: { fields: txmark.FIELDS, clp: txmark.CLP, indexes: txmark.INDEXES },
};

// SESSION_INDEXES are the _Session indexes, by name (the names the local stack has always used, so an index made
// before is found, not made twice).
const SESSION_INDEXES = {
  _Session_sessionToken: { sessionToken: 1 },
  _Session_installationId: { installationId: 1 },
  _Session_user: { user: 1 },
};

// CLASS_NOT_FOUND is parse-server's answer to a schema read of a class that does not exist (INVALID_CLASS_NAME).
const CLASS_NOT_FOUND = 103;

// readSchema returns the class's schema ({fields, classLevelPermissions, indexes}), or null when it does not exist.
async function readSchema(Parse, name) {
  try {
    return await new Parse.Schema(name).get();
  } catch (err) {
    if (err && err.code === CLASS_NOT_FOUND) {
      return null;
    }
    throw err;
  }
}

function samePermissions(a, b) {
  const keys = Object.keys(b);
  return !!a && keys.every(k => JSON.stringify(a[k] || {}) === JSON.stringify(b[k]));
}

// ensureClass makes class name as spec says: created when missing, missing fields and indexes added, its class-level
// permissions set. It writes nothing when all is in place (one schema read). Idempotent; two instances doing it at
// once may see "already exists": runSetup tries again, which then finds it in place.
async function ensureClass(Parse, name, spec) {
  const existing = await readSchema(Parse, name);
  const schema = new Parse.Schema(name);
  let changed = !existing;
  for (const [field, type] of Object.entries(spec.fields || {})) {
    if (!existing || !existing.fields || !existing.fields[field]) {
      schema.addField(field, type);
      changed = true;
    }
  }
  for (const [index, key] of Object.entries(spec.indexes || {})) {
    if (!existing || !existing.indexes || !existing.indexes[index]) {
      schema.addIndex(index, key);
      changed = true;
    }
  }
  if (spec.clp && (!existing || !samePermissions(existing.classLevelPermissions, spec.clp))) {
    schema.setCLP(spec.clp);
    changed = true;
  }
  if (changed) {
    await write(schema, existing);
  }
  return changed;
}

// write saves schema: an update of the existing class, else its creation.
function write(schema, existing) {
  return existing ? schema.update() : schema.save();
}

// ensureClasses makes every class of CLASSES. Resolves to the names it changed.
async function ensureClasses(Parse) {
  const changed = [];
  for (const [name, spec] of Object.entries(CLASSES)) {
    if (await ensureClass(Parse, name, spec)) {
      changed.push(name);
    }
  }
  return changed;
}

// ensureSessionIndexes makes the _Session indexes (the class itself when missing, as a first login would), through
// the schema API: parse-server's adapter makes them (CREATE INDEX IF NOT EXISTS on PostgreSQL, createIndex on
// MongoDB). Resolves to the names it added.
async function ensureSessionIndexes(Parse) {
  const existing = await readSchema(Parse, '_Session');
  const schema = new Parse.Schema('_Session');
  const added = [];
  for (const [index, key] of Object.entries(SESSION_INDEXES)) {
    if (!existing || !existing.indexes || !existing.indexes[index]) {
      schema.addIndex(index, key);
      added.push(index);
    }
  }
  if (added.length > 0) {
    await write(schema, existing);
  }
  return added;
}

// runSetup runs step() until it resolves: at once, then after 0.5 s, 1 s, 2 s... (at most maxPauseMs between tries).
// onError(err, attempt) is told of each failure (the caller logs the first and then now and then). The returned
// promise resolves with step's value; stop() ends the tries (the promise then never resolves).
function runSetup(step, { onError = () => {}, firstPauseMs = 500, maxPauseMs = 30000, setTimer = setTimeout } = {}) {
  let stopped = false;
  let timer;
  const promise = new Promise(resolve => {
    let attempt = 0;
    const tryOnce = () => {
      if (stopped) {
        return;
      }
      attempt++;
      Promise.resolve()
        .then(step)
        .then(resolve, err => {
          onError(err, attempt);
          const pause = Math.min(maxPauseMs, firstPauseMs * 2 ** Math.min(attempt - 1, 16));
          timer = setTimer(tryOnce, pause);
          if (timer && typeof timer.unref === 'function') {
            timer.unref();
          }
        });
    };
    tryOnce();
  });
  return { promise, stop: () => ((stopped = true), clearTimeout(timer)) };
}

module.exports = {
  TICKET_CLASS,
  NONCE_CLASS,
  SESSION_CLASS,
  TXMARK_CLASS,
  MASTER_ONLY,
  CLASSES,
  SESSION_INDEXES,
  ensureClass,
  ensureClasses,
  ensureSessionIndexes,
  runSetup,
};

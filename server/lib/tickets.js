'use strict';
// One-time sign-in tickets: the only thing the moralisEth / moralisSol adapters (auth.js) accept besides a valid
// signature. A ticket is one object of class MoralisAuthTicket, issued by this deployment for one chain, one address
// and one exact message text, with an expiry:
//   - by auth.IssueTicket (Go, master key), for a server-side sign-in that verified a signature itself (the Go
//     endpoint makes its own tickets instead, without a row: see "endpoint ticket" below);
//   - by the cloud function moralisAuthRequestMessage (cloud/authticket.js) for SDK clients that sign in against
//     the backend directly: the message it returns ends with the ticket's secret. These tickets are marked public
//     (field public), metered per client address and capped in number (cloud/authticket.js). A session they give
//     works at the backend but not at the Go endpoint, which accepts only the sessions it recorded itself in
//     MoralisAuthSession (authserver.ClientBackend): so a phisher who gets a victim to sign a text mimicking the
//     endpoint's message through the public function gets nothing the endpoint lets in.
// The adapter consumes a ticket with one DELETE ... WHERE (id, secret, chain, address, message, unexpired): the
// database lets exactly one request delete a row, so a ticket signs in at most once, on every instance.
//
// The Go endpoint's tickets need no row before the login (no round trip to issue them): an endpoint ticket is
//   e1.<id: 10 alphanumerics>.<expiry: Unix ms, 13 digits>.<HMAC-SHA256 in hex>
// whose HMAC, keyed by the master key, covers the id, the expiry, the chain, the address, whether it is for a
// contract account and the exact message (endpointTicketMAC). Only a holder of the master key can make one. The
// adapter checks the HMAC and the expiry, then consumes the ticket by inserting a row with the ticket's id as its
// objectId (consumeEndpointTicket): the primary key lets exactly one insert succeed, so it too signs in at most once,
// on every instance. The row lives until the ticket's expiry and is purged with the others.
//
// The class is readable and writable by the master key only (class-level permissions set at start-up, empty ACL
// on every row): nobody can read a ticket's secret, and nobody can mint one without the master key. The same
// permissions are set on MoralisAuthNonce, the Go endpoint's shared nonce store (authserver.BackendNonceStore), and on
// MoralisAuthSession, the Go endpoint's record of the sessions it made (with an index on its key).
// Expired tickets, nonces and session records are purged on a schedule (startPurging).
const crypto = require('crypto');

const TICKET_CLASS = 'MoralisAuthTicket';
const NONCE_CLASS = 'MoralisAuthNonce';
const SESSION_CLASS = 'MoralisAuthSession';
// A ticket is its object id (10 characters, as parse-server makes them) followed by a secret of 22.
const TICKET_ID_LENGTH = 10;
const TICKET_SECRET_LENGTH = 22;
const TICKET_RE = /^[A-Za-z0-9]{32}$/;
// How long a ticket of moralisAuthRequestMessage stays valid (DEVSTACK_TICKET_TTL_MS overrides it).
const DEFAULT_TICKET_TTL_MS = 5 * 60 * 1000;

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

const CLASS_FIELDS = {
  [TICKET_CLASS]: { secret: 'String', expiresAt: 'Date', chain: 'String', address: 'String', message: 'String', contract: 'Boolean', public: 'Boolean', ip: 'String' },
  [NONCE_CLASS]: { secret: 'String', expiresAt: 'Date', chain: 'String', address: 'String', message: 'String' },
  [SESSION_CLASS]: { key: 'String', expiresAt: 'Date', startedAt: 'Date', session: 'String', chain: 'String', address: 'String', chainId: 'String' },
};

// Indexes the classes need (parse-server's schema format): the endpoint looks its session records up by key.
// and the public function counts the unexpired tickets of a client address.
const CLASS_INDEXES = {
  [SESSION_CLASS]: { key_1: { key: 1 } },
  [TICKET_CLASS]: { ip_1: { ip: 1 } },
};

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// randomAlnum returns n characters drawn uniformly from [A-Za-z0-9] (crypto.randomInt: no modulo bias).
function randomAlnum(n) {
  let s = '';
  for (let i = 0; i < n; i++) {
    s += ALNUM[crypto.randomInt(ALNUM.length)];
  }
  return s;
}

// ensureClasses creates MoralisAuthTicket and MoralisAuthNonce when missing, adds missing fields, and sets their
// class-level permissions to master key only. Idempotent. config is parse-server's Config: index.js runs this while
// the server starts, before it listens, so no client request can ever create these classes with open permissions.
async function ensureClasses(config) {
  const controller = await config.database.loadSchema({ clearCache: true });
  for (const [name, fields] of Object.entries(CLASS_FIELDS)) {
    await ensureClass(config, controller, name, fields, MASTER_ONLY, CLASS_INDEXES[name] || {});
  }
  await ensureSessionIndexes(config, controller);
}

// ensureClass creates class name when missing with its fields ({field: type}), class-level permissions clp and
// indexes (parse-server's schema format), and adds the fields and indexes an existing class lacks, setting clp.
// Idempotent. controller is parse-server's SchemaController (config.database.loadSchema()).
async function ensureClass(config, controller, name, fields, clp, indexes) {
  const existing = await controller.getOneSchema(name, false, { clearCache: true }).catch(() => null);
  const missing = {};
  for (const [field, type] of Object.entries(fields)) {
    if (!existing || !existing.fields || !existing.fields[field]) {
      missing[field] = { type };
    }
  }
  const newIndexes = {};
  for (const [index, spec] of Object.entries(indexes)) {
    if (!existing || !existing.indexes || !existing.indexes[index]) {
      newIndexes[index] = spec;
    }
  }
  if (existing) {
    await controller.updateClass(name, missing, clp, newIndexes, config.database);
  } else {
    await controller.addClassIfNotExists(name, missing, clp, newIndexes);
  }
}

// SESSION_INDEXES are the _Session columns a session is looked up by. parse-server on PostgreSQL indexes none of
// them (only objectId): every request with a session token (users/me, the endpoint's checks), every login's delete
// of an installation's earlier sessions and the endpoint's session record scanned the whole table, whose size grows
// with every sign-in (41,772 rows after a day of tests here: about 9 ms of PostgreSQL CPU per sign-in, the largest
// share of the machine at 100 sign-ins/s). DEPLOY.md asks a deployment for the same indexes.
const SESSION_INDEXES = { _Session_sessionToken: 'sessionToken', _Session_installationId: 'installationId', _Session_user: 'user' };

// ensureSessionIndexes creates the _Session class when missing (as a first login would) and the indexes of
// SESSION_INDEXES (CREATE INDEX IF NOT EXISTS, through parse-server's own adapter). Idempotent.
async function ensureSessionIndexes(config, controller) {
  const adapter = config.database.adapter;
  if (typeof adapter.ensureIndex !== 'function') {
    return;
  }
  await controller.enforceClassExists('_Session');
  const schema = await controller.getOneSchema('_Session', false, { clearCache: true });
  for (const [name, field] of Object.entries(SESSION_INDEXES)) {
    await adapter.ensureIndex('_Session', schema, [field], name);
  }
}

// consumeTicket deletes the ticket that was issued for exactly (chain, address, message) and has not expired, and
// reports whether this call deleted it. database is parse-server's DatabaseController (request.config.database).
// A second call with the same ticket, a concurrent one on another instance, a ticket for another address, chain or
// text, an expired or a never-issued ticket: false. With contract set, only a ticket the endpoint issued after it
// verified a smart-contract account's signature on chain (ERC-1271 / ERC-6492; field contract, written by the
// master key only) matches: the adapter accepts such a signature without ecrecover.
async function consumeTicket(database, { ticket, chain, address, message, contract = false, now = new Date() }) {
  if (typeof ticket !== 'string' || !TICKET_RE.test(ticket)) {
    return false;
  }
  const where = {
    objectId: ticket.slice(0, TICKET_ID_LENGTH),
    secret: ticket.slice(TICKET_ID_LENGTH),
    chain,
    address,
    message,
    expiresAt: { $gt: { __type: 'Date', iso: now.toISOString() } },
  };
  if (contract) {
    where.contract = true;
  }
  try {
    // DELETE ... WHERE all of the above; parse-server answers OBJECT_NOT_FOUND when no row matched, and the count
    // otherwise. A missing table (no ticket ever issued) gives undefined.
    const count = await database.destroy(TICKET_CLASS, where, {});
    return count === 1;
  } catch (err) {
    if (err && err.code === 101) {
      return false;
    }
    throw err;
  }
}

// ENDPOINT_TICKET_RE is the form of an endpoint ticket: id, expiry (Unix ms), HMAC.
const ENDPOINT_TICKET_RE = /^e1\.([A-Za-z0-9]{10})\.([0-9]{13})\.([0-9a-f]{64})$/;
// ENDPOINT_TICKET_MAX_TTL_MS bounds how far ahead an endpoint ticket may expire (the endpoint gives it a minute).
const ENDPOINT_TICKET_MAX_TTL_MS = 60 * 60 * 1000;

// isEndpointTicket reports whether ticket has the form of an endpoint ticket (not whether it is valid).
function isEndpointTicket(ticket) {
  return typeof ticket === 'string' && ticket.startsWith('e1.');
}

// endpointTicketMAC is the HMAC-SHA256, keyed by masterKey, that an endpoint ticket carries (hex): over a fixed
// label, the id, the expiry (Unix ms, decimal), the chain, the address, "1" for a contract account's ticket (else
// "0") and the message, NUL-separated (the message last: it is the only part that may hold any character).
// authserver.ClientBackend computes the same.
function endpointTicketMAC(masterKey, { id, expiresMs, chain, address, contract, message }) {
  const mac = crypto.createHmac('sha256', masterKey);
  mac.update('moralis-go endpoint ticket v1\0');
  mac.update([id, String(expiresMs), chain, address, contract ? '1' : '0', message].join('\0'));
  return mac.digest('hex');
}

// consumeEndpointTicket checks an endpoint ticket (see the top of this file) for exactly (chain, address, message,
// contract) with masterKey, and consumes it: it reports true for the one call that inserted the ticket's row, false
// for a malformed, expired, forged or already used ticket, a ticket for another chain, address or text, an ordinary
// ticket offered as a contract account's, and when there is no master key.
async function consumeEndpointTicket(database, masterKey, { ticket, chain, address, message, contract = false, now = new Date() }) {
  const m = typeof ticket === 'string' ? ENDPOINT_TICKET_RE.exec(ticket) : null;
  if (!m || typeof masterKey !== 'string' || masterKey === '' || typeof message !== 'string') {
    return false;
  }
  const [, id, exp, mac] = m;
  const expiresMs = Number(exp);
  if (!(expiresMs > now.getTime()) || expiresMs > now.getTime() + ENDPOINT_TICKET_MAX_TTL_MS) {
    return false;
  }
  const want = Buffer.from(endpointTicketMAC(masterKey, { id, expiresMs, chain, address, contract, message }), 'hex');
  if (!crypto.timingSafeEqual(want, Buffer.from(mac, 'hex'))) {
    return false;
  }
  const iso = now.toISOString();
  try {
    await database.create(
      TICKET_CLASS,
      { objectId: id, chain, address, expiresAt: { __type: 'Date', iso: new Date(expiresMs).toISOString() }, ACL: {}, createdAt: iso, updatedAt: iso },
      {}
    );
    return true;
  } catch (err) {
    if (err && err.code === 137) {
      return false; // DUPLICATE_VALUE: used already
    }
    throw err;
  }
}

// PURGE_EVERY_MS is how often (at most) one process deletes expired tickets, nonces and session records.
const PURGE_EVERY_MS = 60 * 1000;
let lastPurge = 0;

// purgeExpired deletes the expired tickets (those issued and never used), the expired nonces of the Go endpoint and
// its expired session records, at most once per PURGE_EVERY_MS per process; it resolves to how many it deleted (0
// when it skipped). Errors are the caller's to log: a failed purge only delays the clean-up, it never lets anything
// through (consumeTicket and the endpoint check expiries themselves).
async function purgeExpired(database, now = new Date()) {
  if (now.getTime() - lastPurge < PURGE_EVERY_MS) {
    return 0;
  }
  lastPurge = now.getTime();
  let total = 0;
  for (const className of [TICKET_CLASS, NONCE_CLASS, SESSION_CLASS]) {
    try {
      const n = await database.destroy(className, { expiresAt: { $lt: { __type: 'Date', iso: now.toISOString() } } }, {});
      total += typeof n === 'number' ? n : 0;
    } catch (err) {
      if (!err || err.code !== 101) {
        throw err;
      }
    }
  }
  return total;
}

// startPurging runs purgeExpired(getDatabase()) every PURGE_EVERY_MS (every intervalMs when given) until the process
// ends, so expired rows go even when nobody signs in; failures are logged. It returns the timer (unref'd).
function startPurging(getDatabase, intervalMs = PURGE_EVERY_MS) {
  const timer = setInterval(() => {
    let database;
    try {
      database = getDatabase();
    } catch (err) {
      console.error('wallet auth: no database to purge:', err && err.message);
      return;
    }
    purgeExpired(database).catch(err => console.error('wallet auth: purging expired rows:', err && err.message));
  }, intervalMs);
  timer.unref();
  return timer;
}

// countOutstanding resolves to the number of unexpired public tickets (those of moralisAuthRequestMessage), of the
// client address ip when given, else of all.
async function countOutstanding(database, { ip, now = new Date() } = {}) {
  const where = { public: true, expiresAt: { $gt: { __type: 'Date', iso: now.toISOString() } } };
  if (ip !== undefined) {
    where.ip = ip;
  }
  try {
    const n = await database.find(TICKET_CLASS, where, { count: true, limit: 0 });
    return typeof n === 'number' ? n : 0;
  } catch (err) {
    if (err && err.code === 101) {
      return 0;
    }
    throw err;
  }
}

// issueTicket stores a ticket for chain, address and the message built by messageFor(secret), valid for ttlMs, and
// returns {ticket, message, expiresAt}; ip, when given, marks a ticket of the public function issued to that client
// address. Parse is the server's global (master key).
async function issueTicket(Parse, { chain, address, messageFor, ttlMs = DEFAULT_TICKET_TTL_MS, ip }) {
  const secret = randomAlnum(TICKET_SECRET_LENGTH);
  const message = messageFor(secret);
  const expiresAt = new Date(Date.now() + ttlMs);
  const o = new Parse.Object(TICKET_CLASS);
  o.set({ secret, expiresAt, chain, address, message });
  if (ip !== undefined) {
    o.set({ public: true, ip });
  }
  o.setACL(new Parse.ACL());
  await o.save(null, { useMasterKey: true });
  if (typeof o.id !== 'string' || o.id.length !== TICKET_ID_LENGTH) {
    throw new Error(`${TICKET_CLASS}: unexpected object id ${JSON.stringify(o.id)}`);
  }
  return { ticket: o.id + secret, message, expiresAt };
}

module.exports = {
  TICKET_CLASS,
  NONCE_CLASS,
  SESSION_CLASS,
  MASTER_ONLY,
  DEFAULT_TICKET_TTL_MS,
  ensureClasses,
  ensureClass,
  consumeTicket,
  consumeEndpointTicket,
  endpointTicketMAC,
  isEndpointTicket,
  purgeExpired,
  startPurging,
  countOutstanding,
  issueTicket,
  randomAlnum,
};

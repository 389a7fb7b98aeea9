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
// The adapter consumes an issued ticket through parse-server's public API, with the master key: it reads the ticket by
// its id, checks its secret, chain, address, text and expiry, and destroys it; parse-server deletes by objectId and
// answers 101 to every delete that found no row, so of any number of concurrent consumers, on any instances, exactly
// one gets the ticket.
//
// The Go endpoint's tickets need no row before the login (no round trip to issue them): an endpoint ticket is
//   e1.<id: 10 alphanumerics>.<expiry: Unix ms, 13 digits>.<HMAC-SHA256 in hex>
// whose HMAC, keyed by the master key, covers the id, the expiry, the chain, the address, whether it is for a
// contract account and the exact message (endpointTicketMAC). Only a holder of the master key can make one. The
// adapter checks the HMAC and the expiry, then claims the ticket's id (claimStore): by inserting a row whose objectId
// is the id, through parse-server's database controller, where the primary key lets exactly one insert succeed
// (exactly once, on every instance); or, where that private module is missing or changed, by inserting a claim row
// and counting the claims of the id (public API: a claimant wins only when its row is the only one, so at most one
// wins; two replays racing may both lose, which only costs the legitimate client a retry). Claim rows live until the
// ticket's expiry and are purged with the others.
//
// The class is readable and writable by the master key only (class-level permissions, setup.js; the package's
// triggers refuse everybody else until they are set): nobody can read a ticket's secret, and nobody can mint one
// without the master key. The same holds for MoralisAuthNonce, the Go endpoint's shared nonce store
// (authserver.BackendNonceStore), and MoralisAuthSession, the Go endpoint's record of the sessions it made.
// Expired tickets, nonces and session records are purged on a schedule (startPurging).
const crypto = require('crypto');

const private_ = require('./private');
const { TICKET_CLASS, NONCE_CLASS, SESSION_CLASS, MASTER_ONLY } = require('./setup');

// A ticket is its object id (10 characters, as parse-server makes them) followed by a secret of 22.
const TICKET_ID_LENGTH = 10;
const TICKET_SECRET_LENGTH = 22;
const TICKET_RE = /^[A-Za-z0-9]{32}$/;
// How long a ticket of moralisAuthRequestMessage stays valid (DEVSTACK_TICKET_TTL_MS overrides it).
const DEFAULT_TICKET_TTL_MS = 5 * 60 * 1000;

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// randomAlnum returns n characters drawn uniformly from [A-Za-z0-9] (crypto.randomInt: no modulo bias).
function randomAlnum(n) {
  let s = '';
  for (let i = 0; i < n; i++) {
    s += ALNUM[crypto.randomInt(ALNUM.length)];
  }
  return s;
}

// OBJECT_NOT_FOUND is parse-server's answer to a read or delete that found no row (or no class).
const OBJECT_NOT_FOUND = 101;

// sameSecret compares two strings in time independent of where they differ.
function sameSecret(a, b) {
  if (typeof a !== 'string' || typeof b !== 'string') {
    return false;
  }
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

// consumeTicket consumes the ticket that was issued for exactly (chain, address, message) and has not expired, and
// reports whether this call consumed it. Parse is parse-server's Parse (the master key is used). A second call with
// the same ticket, a concurrent one on another instance, a ticket for another address, chain or text, an expired or
// a never-issued ticket: false. With contract set, only a ticket the endpoint issued after it verified a
// smart-contract account's signature on chain (ERC-1271 / ERC-6492; field contract, written by the master key only)
// matches: the adapter accepts such a signature without ecrecover. A ticket that does not match is left as it is.
async function consumeTicket(Parse, { ticket, chain, address, message, contract = false, now = new Date() }) {
  if (typeof ticket !== 'string' || !TICKET_RE.test(ticket)) {
    return false;
  }
  let row;
  try {
    row = await new Parse.Query(TICKET_CLASS).get(ticket.slice(0, TICKET_ID_LENGTH), { useMasterKey: true });
  } catch (err) {
    if (err && err.code === OBJECT_NOT_FOUND) {
      return false; // no such ticket (or no ticket was ever issued: no class)
    }
    throw err;
  }
  const expiresAt = row.get('expiresAt');
  if (
    !sameSecret(row.get('secret'), ticket.slice(TICKET_ID_LENGTH)) ||
    row.get('chain') !== chain ||
    row.get('address') !== address ||
    row.get('message') !== message ||
    !(expiresAt instanceof Date) ||
    !(expiresAt.getTime() > now.getTime()) ||
    (contract && row.get('contract') !== true)
  ) {
    return false;
  }
  try {
    // DELETE ... WHERE objectId: one of any number of concurrent deletes removes the row, the others get 101.
    await row.destroy({ useMasterKey: true });
    return true;
  } catch (err) {
    if (err && err.code === OBJECT_NOT_FOUND) {
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
// contract) with masterKey, and consumes it through store (databaseClaims or queryClaims): it reports true for the
// one call that claimed the ticket's id, false for a malformed, expired, forged or already used ticket, a ticket
// for another chain, address or text, an ordinary ticket offered as a contract account's, and when there is no
// master key. Nothing is written for a ticket that fails its checks.
async function consumeEndpointTicket(store, masterKey, { ticket, chain, address, message, contract = false, now = new Date() }) {
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
  return store.claim({ id, chain, address, expiresAt: new Date(expiresMs), now });
}

// databaseClaims claims endpoint ticket ids through parse-server's database controller (its private API): one
// insert whose objectId is the ticket's id, which the primary key lets succeed exactly once (137 for the others).
// The row also carries the id as its claim, so a queryClaims claimant (an instance whose private module is broken)
// that comes later counts it and loses.
function databaseClaims(database) {
  return {
    exactlyOnce: true,
    async claim({ id, chain, address, expiresAt, now }) {
      const iso = now.toISOString();
      try {
        await database.create(
          TICKET_CLASS,
          { objectId: id, claim: id, chain, address, expiresAt: { __type: 'Date', iso: expiresAt.toISOString() }, ACL: {}, createdAt: iso, updatedAt: iso },
          {}
        );
        return true;
      } catch (err) {
        if (err && err.code === 137) {
          return false; // DUPLICATE_VALUE: used already
        }
        throw err;
      }
    },
  };
}

// queryClaims claims endpoint ticket ids with parse-server's public API: it saves a claim row (field claim = the id,
// no secret) and then counts the claim rows of the id; the claimant wins only when its row is the only one. At most
// one claimant wins: each counts after its own row was written, so of two claimants the later count sees both. Two
// racing claimants may both see both and both lose.
function queryClaims(Parse) {
  return {
    exactlyOnce: false,
    async claim({ id, chain, address, expiresAt }) {
      const row = new Parse.Object(TICKET_CLASS);
      row.set({ claim: id, chain, address, expiresAt });
      row.setACL(new Parse.ACL());
      await row.save(null, { useMasterKey: true });
      const rows = await new Parse.Query(TICKET_CLASS).equalTo('claim', id).limit(2).find({ useMasterKey: true });
      return rows.length === 1 && rows[0].id === row.id;
    },
  };
}

// claimStore returns the way this server claims endpoint tickets: databaseClaims when parse-server's database
// controller is usable (private.js), else queryClaims. onFallback(reason) is called the first time the second is
// chosen.
let fallbackTold = false;
function claimStore(Parse, onFallback = reason => console.error(`moralis-go-server: endpoint tickets are consumed at most once (not exactly once): ${reason}`)) {
  const off = private_.featureOff('endpointTicketsExactlyOnce');
  const config = off ? null : private_.config(Parse.applicationId);
  if (config && config.database && typeof config.database.create === 'function') {
    return databaseClaims(config.database);
  }
  if (!fallbackTold) {
    fallbackTold = true;
    onFallback(off || 'parse-server has no database controller for this app');
  }
  return queryClaims(Parse);
}

// PURGE_EVERY_MS is how often (at most) one process deletes expired tickets, nonces and session records.
const PURGE_EVERY_MS = 60 * 1000;
// PURGE_BATCH rows are read and deleted at a time by the public-API purge, at most PURGE_BATCHES times per class.
const PURGE_BATCH = 500;
const PURGE_BATCHES = 20;
let lastPurge = 0;

// purgeExpired deletes the expired tickets (those issued and never used, and endpoint ticket claims), the expired
// nonces of the Go endpoint and its expired session records, at most once per PURGE_EVERY_MS per process; it
// resolves to how many it deleted (0 when it skipped). With database (parse-server's database controller, when the
// private module is usable) one DELETE per class; else through the public API, PURGE_BATCH rows at a time. Errors
// are the caller's to log: a failed purge only delays the clean-up, it never lets anything through (consumeTicket
// and the endpoint check expiries themselves).
async function purgeExpired(Parse, { now = new Date(), database = null, force = false } = {}) {
  if (!force) {
    if (Math.abs(now.getTime() - lastPurge) < PURGE_EVERY_MS) {
      return 0;
    }
    lastPurge = now.getTime();
  }
  let total = 0;
  for (const className of [TICKET_CLASS, NONCE_CLASS, SESSION_CLASS]) {
    if (database) {
      try {
        const n = await database.destroy(className, { expiresAt: { $lt: { __type: 'Date', iso: now.toISOString() } } }, {});
        total += typeof n === 'number' ? n : 0;
      } catch (err) {
        if (!err || err.code !== OBJECT_NOT_FOUND) {
          throw err;
        }
      }
      continue;
    }
    for (let i = 0; i < PURGE_BATCHES; i++) {
      let rows;
      try {
        rows = await new Parse.Query(className).lessThan('expiresAt', now).select('objectId').limit(PURGE_BATCH).find({ useMasterKey: true });
      } catch (err) {
        if (err && err.code === OBJECT_NOT_FOUND) {
          break;
        }
        throw err;
      }
      if (rows.length === 0) {
        break;
      }
      try {
        await Parse.Object.destroyAll(rows, { useMasterKey: true });
      } catch (err) {
        // destroyAll reports a row another instance deleted meanwhile as 101 (an AggregateError of them): fine.
        if (!onlyNotFound(err)) {
          throw err;
        }
      }
      total += rows.length;
      if (rows.length < PURGE_BATCH) {
        break;
      }
    }
  }
  return total;
}

// onlyNotFound reports whether err (Parse.Object.destroyAll's error) is made only of 101s.
function onlyNotFound(err) {
  if (!err) {
    return false;
  }
  if (err.code === OBJECT_NOT_FOUND) {
    return true;
  }
  const inner = Array.isArray(err.errors) ? err.errors : Array.isArray(err.message) ? err.message : null;
  return !!inner && inner.length > 0 && inner.every(e => e && e.code === OBJECT_NOT_FOUND);
}

// startPurging runs purgeExpired every PURGE_EVERY_MS (every intervalMs when given) until the process ends, so
// expired rows go even when nobody signs in; failures are logged. getDatabase returns parse-server's database
// controller or null (then the public API is used). It returns the timer (unref'd).
function startPurging(Parse, getDatabase = () => null, intervalMs = PURGE_EVERY_MS) {
  const timer = setInterval(() => {
    let database = null;
    try {
      database = getDatabase();
    } catch (err) {
      database = null;
    }
    purgeExpired(Parse, { database }).catch(err => console.error('moralis-go-server: purging expired tickets, nonces and session records:', err && err.message));
  }, intervalMs);
  timer.unref();
  return timer;
}

// countOutstanding resolves to the number of unexpired public tickets (those of moralisAuthRequestMessage), of the
// client address ip when given, else of all.
async function countOutstanding(Parse, { ip, now = new Date() } = {}) {
  const q = new Parse.Query(TICKET_CLASS).equalTo('public', true).greaterThan('expiresAt', now);
  if (ip !== undefined) {
    q.equalTo('ip', ip);
  }
  try {
    const n = await q.count({ useMasterKey: true });
    return typeof n === 'number' ? n : 0;
  } catch (err) {
    if (err && err.code === OBJECT_NOT_FOUND) {
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
  consumeTicket,
  consumeEndpointTicket,
  databaseClaims,
  queryClaims,
  claimStore,
  endpointTicketMAC,
  isEndpointTicket,
  purgeExpired,
  startPurging,
  countOutstanding,
  issueTicket,
  randomAlnum,
};

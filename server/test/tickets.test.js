'use strict';
// Tickets (lib/tickets.js): consumption of issued tickets (public API: read, check, destroy) and of endpoint tickets
// (the database controller's insert keyed by the id, or public claim rows), concurrent consumers, the purge and the
// count of outstanding tickets. parse-server's Parse is the in-memory fake of fakeparse.js.
const test = require('node:test');
const assert = require('node:assert/strict');
const tickets = require('../lib/tickets');
const { fakeParse } = require('./fakeparse');

const T = 'MoralisAuthTicket';
const NOW = new Date(Date.UTC(2030, 0, 1));
const LATER = new Date(NOW.getTime() + 60_000);

// issued stores a ticket row as issueTicket does and returns the ticket (id + secret).
function issued(P, id, fields = {}) {
  const secret = 'S'.repeat(22);
  P.table(T).set(id, { secret, chain: 'evm', address: '0xabc', message: 'm', expiresAt: LATER, ...fields });
  return id + secret;
}

test('consumeTicket reads the ticket, checks every binding, then destroys it: true once', async () => {
  const P = fakeParse();
  const ticket = issued(P, 'abcdefghij');
  const t = { ticket, chain: 'evm', address: '0xabc', message: 'm', now: NOW };
  // Every binding, the secret and the expiry must match; a mismatch leaves the ticket as it is.
  for (const other of [
    { chain: 'solana' },
    { address: '0xabd' },
    { message: 'm ' },
    { contract: true },
    { ticket: 'abcdefghij' + 'T'.repeat(22) },
    { now: LATER },
    { now: new Date(LATER.getTime() + 1) },
  ]) {
    assert.equal(await tickets.consumeTicket(P, { ...t, ...other }), false, JSON.stringify(other));
  }
  assert.equal(P.table(T).size, 1, 'a refused consume leaves the ticket');
  assert.equal(P.calls.filter(c => c.op === 'destroy').length, 0);
  assert.equal(await tickets.consumeTicket(P, t), true);
  assert.equal(P.table(T).size, 0);
  assert.equal(await tickets.consumeTicket(P, t), false, 'used');
  // A contract account's ticket matches an ordinary consume and a contract one; an ordinary ticket only the first.
  const contract = issued(P, 'contract00', { contract: true });
  assert.equal(await tickets.consumeTicket(P, { ...t, ticket: contract, contract: true }), true);
  // Malformed tickets never reach the database; a missing row (or class) is false; other errors are the caller's.
  const before = P.calls.length;
  for (const bad of ['', 'short', '../classes/_User/abcdefghijklmnopq', 'abcdefghij' + 'S'.repeat(21) + '!', 42, null]) {
    assert.equal(await tickets.consumeTicket(P, { ...t, ticket: bad }), false);
  }
  assert.equal(P.calls.length, before);
  assert.equal(await tickets.consumeTicket(P, { ...t, ticket: 'zzzzzzzzzz' + 'S'.repeat(22) }), false);
  const lost = issued(P, 'connlost00');
  P.fail('destroy', new Error('connection lost'));
  await assert.rejects(tickets.consumeTicket(P, { ...t, ticket: lost }), /connection lost/);
  P.fail('destroy');
  P.fail('get', new Error('connection lost'));
  await assert.rejects(tickets.consumeTicket(P, { ...t, ticket: lost }), /connection lost/);
});

test('consumeTicket: of 10 concurrent consumers of one ticket exactly one wins', async () => {
  const P = fakeParse();
  for (let round = 0; round < 5; round++) {
    const ticket = issued(P, `round${round}0000`);
    const t = { ticket, chain: 'evm', address: '0xabc', message: 'm', now: NOW };
    const results = await Promise.all(Array.from({ length: 10 }, () => tickets.consumeTicket(P, t)));
    assert.equal(results.filter(Boolean).length, 1, `round ${round}: ${results}`);
  }
});

// fakeDatabase keeps created rows by objectId and refuses a second one with the same id (code 137), as the primary
// key does.
function fakeDatabase() {
  const rows = new Map();
  return {
    rows,
    async create(cls, obj) {
      await new Promise(resolve => setImmediate(resolve));
      const k = `${cls}/${obj.objectId}`;
      if (rows.has(k)) {
        throw Object.assign(new Error('A duplicate value for a field with unique values was provided'), { code: 137 });
      }
      rows.set(k, obj);
      return obj;
    },
  };
}

// endpointTicket makes a ticket as authserver.ClientBackend does.
function endpointTicket(key, { id = 'AbCdEfGhIj', expiresMs, chain = 'evm', address = '0xabc', contract = false, message = 'm' }) {
  return `e1.${id}.${expiresMs}.${tickets.endpointTicketMAC(key, { id, expiresMs, chain, address, contract, message })}`;
}

// consumesEndpointTicketsOnce checks consumeEndpointTicket over store (made by newStore): refusals write nothing,
// a good ticket is accepted once, bound to every field; rows() lists what the store wrote.
async function consumesEndpointTicketsOnce(newStore) {
  const key = 'the-master-key';
  const now = new Date(1_800_000_000_000);
  const expiresMs = now.getTime() + 60_000;
  const t = { chain: 'evm', address: '0xabc', message: 'm', now };
  const good = endpointTicket(key, { expiresMs });
  assert.equal(tickets.isEndpointTicket(good), true);
  assert.equal(tickets.isEndpointTicket('AbCdEfGhIj' + 'S'.repeat(22)), false);
  const { store, rows } = newStore();
  // Refused before any write: another key, another chain, address, text, the contract flag, an expired or
  // too-distant expiry, a changed MAC, no master key, malformed tickets.
  const refusals = [
    [endpointTicket('another-key', { expiresMs }), t, key],
    [good, { ...t, chain: 'solana' }, key],
    [good, { ...t, address: '0xabd' }, key],
    [good, { ...t, message: 'm ' }, key],
    [good, { ...t, contract: true }, key],
    [endpointTicket(key, { expiresMs: now.getTime() }), t, key],
    [endpointTicket(key, { expiresMs: now.getTime() + 2 * 60 * 60 * 1000 }), t, key],
    [good.slice(0, -1) + (good.endsWith('0') ? '1' : '0'), t, key],
    [good.replace('.AbCdEfGhIj.', '.AbCdEfGhIk.'), t, key],
    [good, t, ''],
    [good, t, undefined],
    ['e1.AbCdEfGhIj.1.00', t, key],
    [good + '0', t, key],
    [good.toUpperCase(), t, key],
  ];
  for (const [ticket, binding, k] of refusals) {
    assert.equal(await tickets.consumeEndpointTicket(store, k, { ...binding, ticket }), false, `${ticket} ${JSON.stringify(binding)}`);
  }
  assert.equal(rows().length, 0, 'a refused ticket writes nothing');
  // The good one: once. The row expires with the ticket and holds no secret.
  assert.equal(await tickets.consumeEndpointTicket(store, key, { ...t, ticket: good }), true);
  assert.equal(rows().length, 1);
  const [row] = rows();
  assert.equal(new Date(row.expiresAt.iso || row.expiresAt).getTime(), expiresMs);
  assert.equal(row.secret, undefined, 'no secret: an ordinary ticket can never match this row');
  assert.equal(row.claim, 'AbCdEfGhIj');
  assert.equal(await tickets.consumeEndpointTicket(store, key, { ...t, ticket: good }), false);
  // A contract account's ticket matches only a contract consume.
  const contract = endpointTicket(key, { id: 'ContractId', expiresMs, contract: true });
  assert.equal(await tickets.consumeEndpointTicket(store, key, { ...t, ticket: contract }), false);
  assert.equal(await tickets.consumeEndpointTicket(store, key, { ...t, contract: true, ticket: contract }), true);
  return { key, t, expiresMs, store };
}

test('consumeEndpointTicket through the database controller: the HMAC and expiry checked, then one insert keyed by the id', async () => {
  const db = fakeDatabase();
  const { key, t, expiresMs, store } = await consumesEndpointTicketsOnce(() => ({
    store: tickets.databaseClaims(db),
    rows: () => [...db.rows.values()],
  }));
  assert.equal(store.exactlyOnce, true);
  assert.deepEqual(db.rows.get('MoralisAuthTicket/AbCdEfGhIj').ACL, {}, 'master key only');
  // Concurrent submissions of one ticket: exactly one wins, every time.
  for (let round = 0; round < 5; round++) {
    const t3 = endpointTicket(key, { id: `Concurren${round}`, expiresMs });
    const results = await Promise.all(Array.from({ length: 10 }, () => tickets.consumeEndpointTicket(store, key, { ...t, ticket: t3 })));
    assert.equal(results.filter(Boolean).length, 1);
  }
  // Any other database error is the caller's.
  const broken = tickets.databaseClaims({ async create() { throw new Error('connection lost'); } });
  await assert.rejects(tickets.consumeEndpointTicket(broken, key, { ...t, ticket: endpointTicket(key, { id: 'Broken0000', expiresMs }) }), /connection lost/);
});

test('consumeEndpointTicket through public claim rows: once when alone, at most once when raced', async () => {
  const P = fakeParse();
  const { key, t, expiresMs, store } = await consumesEndpointTicketsOnce(() => ({
    store: tickets.queryClaims(P),
    rows: () => [...P.table(T).values()],
  }));
  assert.equal(store.exactlyOnce, false);
  // A claim row an instance wrote through the database controller counts too: a later claimant loses.
  const late = endpointTicket(key, { id: 'DbClaimed0', expiresMs });
  await tickets.databaseClaims({ create: async (cls, row) => P.table(cls).set(row.objectId, row) }).claim({ id: 'DbClaimed0', chain: 'evm', address: '0xabc', expiresAt: new Date(expiresMs), now: t.now });
  assert.equal(await tickets.consumeEndpointTicket(store, key, { ...t, ticket: late }), false);
  // Concurrent claimants: never more than one wins.
  for (let round = 0; round < 5; round++) {
    const t3 = endpointTicket(key, { id: `Racing000${round}`, expiresMs });
    const results = await Promise.all(Array.from({ length: 10 }, () => tickets.consumeEndpointTicket(store, key, { ...t, ticket: t3 })));
    assert.ok(results.filter(Boolean).length <= 1, `round ${round}: ${results}`);
  }
});

test('claimStore takes claim rows when parse-server\'s lib/Config is unusable, and says so once', async () => {
  const private_ = require('../lib/private');
  const P = fakeParse();
  private_.breakModules(['Config']);
  const lines = [];
  const s1 = tickets.claimStore(P, line => lines.push(line));
  const s2 = tickets.claimStore(P, line => lines.push(line));
  assert.equal(s1.exactlyOnce, false);
  assert.equal(s2.exactlyOnce, false);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /parse-server\/lib\/Config/);
  assert.equal(private_.featureOff('endpointTicketsExactlyOnce') !== '', true);
});

test('purgeExpired deletes expired tickets, nonces and session records at most once a minute', async () => {
  // Through the database controller: one DELETE per class.
  const wheres = [];
  const db = { async destroy(cls, where) { wheres.push({ cls, where }); return 3; } };
  const P = fakeParse();
  assert.equal(await tickets.purgeExpired(P, { now: NOW, database: db, force: true }), 9);
  const expired = { expiresAt: { $lt: { __type: 'Date', iso: NOW.toISOString() } } };
  assert.deepEqual(wheres, ['MoralisAuthTicket', 'MoralisAuthNonce', 'MoralisAuthSession'].map(cls => ({ cls, where: expired })));
  assert.equal(await tickets.purgeExpired(P, { now: NOW, database: db }), 9, 'the first of the minute');
  assert.equal(await tickets.purgeExpired(P, { now: new Date(NOW.getTime() + 30000), database: db }), 0, 'within the minute');
  assert.equal(wheres.length, 6);
  const none = { async destroy() { throw Object.assign(new Error('Object not found.'), { code: 101 }); } };
  assert.equal(await tickets.purgeExpired(P, { now: new Date(NOW.getTime() + 61000), database: none }), 0);
  // Through the public API: the expired rows of each class go, the live ones stay.
  const Q = fakeParse();
  for (const cls of ['MoralisAuthTicket', 'MoralisAuthNonce', 'MoralisAuthSession']) {
    for (let i = 0; i < 3; i++) {
      Q.table(cls).set(`${cls}-old-${i}`, { expiresAt: new Date(NOW.getTime() - 1000) });
    }
    Q.table(cls).set(`${cls}-live`, { expiresAt: LATER });
  }
  assert.equal(await tickets.purgeExpired(Q, { now: NOW, force: true }), 9);
  for (const cls of ['MoralisAuthTicket', 'MoralisAuthNonce', 'MoralisAuthSession']) {
    assert.deepEqual([...Q.table(cls).keys()], [`${cls}-live`]);
  }
  // Other failures are the caller's.
  Q.fail('find', new Error('connection lost'));
  await assert.rejects(tickets.purgeExpired(Q, { now: NOW, force: true }), /connection lost/);
});

test('startPurging purges on its schedule, without any sign-in', async () => {
  await tickets.purgeExpired(fakeParse(), { now: new Date(0), database: { destroy: async () => 0 } }); // the clock of the last purge: long ago
  const classes = [];
  const db = { async destroy(cls) { classes.push(cls); return 0; } };
  const timer = tickets.startPurging(fakeParse(), () => db, 20);
  try {
    // purgeExpired runs at most once a minute per process: the first tick purges, later ticks skip.
    const deadline = Date.now() + 5000;
    while (classes.length < 3 && Date.now() < deadline) {
      await new Promise(r => setTimeout(r, 10));
    }
  } finally {
    clearInterval(timer);
  }
  assert.deepEqual(classes, ['MoralisAuthTicket', 'MoralisAuthNonce', 'MoralisAuthSession']);
});

test('countOutstanding counts unexpired public tickets, of one client address or of all', async () => {
  const P = fakeParse();
  P.table(T).set('a', { public: true, ip: '127.0.0.9', expiresAt: LATER });
  P.table(T).set('b', { public: true, ip: '127.0.0.8', expiresAt: LATER });
  P.table(T).set('c', { public: true, ip: '127.0.0.9', expiresAt: new Date(NOW.getTime() - 1) });
  P.table(T).set('d', { ip: '127.0.0.9', expiresAt: LATER }); // the endpoint's ticket: not public
  assert.equal(await tickets.countOutstanding(P, { ip: '127.0.0.9', now: NOW }), 1);
  assert.equal(await tickets.countOutstanding(P, { now: NOW }), 2);
  P.fail('count', Object.assign(new Error('Object not found.'), { code: 101 }));
  assert.equal(await tickets.countOutstanding(P, { now: NOW }), 0);
  P.fail('count', new Error('connection lost'));
  await assert.rejects(tickets.countOutstanding(P, { now: NOW }), /connection lost/);
});

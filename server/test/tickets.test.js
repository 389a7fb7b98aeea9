'use strict';
// The public ticket function's bounds (tickets.js): the scheduled purge and the count of outstanding tickets.
const test = require('node:test');
const assert = require('node:assert');
const tickets = require('../lib/tickets');

test('startPurging purges on its schedule, without any sign-in', async () => {
  const classes = [];
  const db = { async destroy(cls) { classes.push(cls); return 0; } };
  const timer = tickets.startPurging(() => db, 20);
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
  const calls = [];
  const db = { async find(cls, where, opts) { calls.push({ cls, where, opts }); return 7; } };
  const now = new Date(Date.UTC(2030, 0, 1));
  assert.equal(await tickets.countOutstanding(db, { ip: '127.0.0.9', now }), 7);
  assert.equal(await tickets.countOutstanding(db, { now }), 7);
  const unexpired = { $gt: { __type: 'Date', iso: now.toISOString() } };
  assert.deepEqual(calls, [
    { cls: 'MoralisAuthTicket', where: { public: true, expiresAt: unexpired, ip: '127.0.0.9' }, opts: { count: true, limit: 0 } },
    { cls: 'MoralisAuthTicket', where: { public: true, expiresAt: unexpired }, opts: { count: true, limit: 0 } },
  ]);
  const none = { async find() { throw Object.assign(new Error('Object not found.'), { code: 101 }); } };
  assert.equal(await tickets.countOutstanding(none), 0);
  await assert.rejects(tickets.countOutstanding({ async find() { throw new Error('connection lost'); } }), /connection lost/);
});

// fakeDatabase keeps created rows by objectId and refuses a second one with the same id (code 137), as the primary
// key does.
function fakeDatabase() {
  const rows = new Map();
  return {
    rows,
    async create(cls, obj) {
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

test('consumeEndpointTicket: the master key HMAC and expiry checked, then one insert: once, bound to every field', async () => {
  const key = 'the-master-key';
  const now = new Date(1_800_000_000_000);
  const expiresMs = now.getTime() + 60_000;
  const t = { chain: 'evm', address: '0xabc', message: 'm', now };
  const good = endpointTicket(key, { expiresMs });
  assert.equal(tickets.isEndpointTicket(good), true);
  assert.equal(tickets.isEndpointTicket('AbCdEfGhIj' + 'S'.repeat(22)), false);
  const db = fakeDatabase();
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
    assert.equal(await tickets.consumeEndpointTicket(db, k, { ...binding, ticket }), false, `${ticket} ${JSON.stringify(binding)}`);
  }
  assert.equal(db.rows.size, 0, 'a refused ticket writes nothing');
  // The good one: once. The row is keyed by the id, master-key-only, and expires with the ticket.
  assert.equal(await tickets.consumeEndpointTicket(db, key, { ...t, ticket: good }), true);
  const row = db.rows.get('MoralisAuthTicket/AbCdEfGhIj');
  assert.deepEqual(row.ACL, {});
  assert.equal(row.expiresAt.iso, new Date(expiresMs).toISOString());
  assert.equal(row.secret, undefined, 'no secret: the DELETE of an ordinary ticket can never match this row');
  assert.equal(await tickets.consumeEndpointTicket(db, key, { ...t, ticket: good }), false);
  // A contract account's ticket matches only a contract consume.
  const contract = endpointTicket(key, { id: 'ContractId', expiresMs, contract: true });
  assert.equal(await tickets.consumeEndpointTicket(db, key, { ...t, ticket: contract }), false);
  assert.equal(await tickets.consumeEndpointTicket(db, key, { ...t, contract: true, ticket: contract }), true);
  // Concurrent submissions of one ticket: exactly one wins.
  const t3 = endpointTicket(key, { id: 'Concurrent', expiresMs });
  const results = await Promise.all(Array.from({ length: 10 }, () => tickets.consumeEndpointTicket(db, key, { ...t, ticket: t3 })));
  assert.equal(results.filter(Boolean).length, 1);
  // Any other database error is the caller's.
  const broken = { async create() { throw new Error('connection lost'); } };
  await assert.rejects(tickets.consumeEndpointTicket(broken, key, { ...t, ticket: endpointTicket(key, { id: 'Broken0000', expiresMs }) }), /connection lost/);
});

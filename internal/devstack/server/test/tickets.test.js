'use strict';
// The public ticket function's bounds (tickets.js): the scheduled purge and the count of outstanding tickets.
const test = require('node:test');
const assert = require('node:assert');
const tickets = require('../tickets');

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

'use strict';
// cloud/register.js (registerCloud: the functions, the guards of the package's classes, moralisGoServerInfo, the
// options) and cloud/authsignin.js's answers that need no database (the master key, parameters, off, an internal
// failure). Run with NODE_PATH pointing at an install of parse-server (the stack's: .devstack/server/node_modules):
// the package reads parse-server's version and loads its private modules from there.
const test = require('node:test');
const assert = require('node:assert/strict');
const { fakeParse } = require('./fakeparse');

const P = fakeParse({ applicationId: 'registerTestApp' });
global.Parse = P;
const register = require('../cloud/register');
const lines = [];
const registered = register.registerCloud({ idempotencyPurgeSeconds: 0, log: line => lines.push(line) });

const call = (name, req) => P.defined.get(name).fn({ params: {}, ...req });

test('registerCloud defines the package functions and guards, and logs one line of what is off', async () => {
  for (const name of ['getServerTime', 'moralisAuthRequestMessage', 'moralisGoRecordSession', 'moralisGoSignIn', 'moralisGoServerInfo', 'moralisGoTxApplied', 'moralisGoCheckWrites', 'getNativeBalance']) {
    assert.ok(P.defined.has(name), name);
  }
  const t = await call('getServerTime', {});
  assert.ok(Math.abs(Date.parse(t.dateTime) - Date.now()) < 60000);
  assert.deepEqual(
    P.triggers.map(g => `${g.kind} ${g.cls}`).sort(),
    ['MoralisAuthNonce', 'MoralisAuthSession', 'MoralisAuthTicket', 'MoralisGoTxMark'].flatMap(c => [`beforeFind ${c}`, `beforeSave ${c}`]).sort()
  );
  assert.equal(lines.filter(l => l.startsWith('moralis-go-server 0.')).length, 1, lines.join('\n'));
  assert.match(lines.find(l => l.startsWith('moralis-go-server 0.')), /off: idempotencyPurge \(/);
});

test('the guards refuse every request but the master key\'s, with parse-server\'s permission answer', async () => {
  for (const g of P.triggers.filter(g => g.kind === 'beforeFind' || g.cls !== 'MoralisGoTxMark')) {
    const req = g.kind === 'beforeSave' ? { object: { className: g.cls } } : { query: { className: g.cls } };
    assert.throws(() => g.fn({ ...req, master: false }), err => err.code === 119 && err.message === `Permission denied for action ${g.kind === 'beforeSave' ? 'create' : 'find'} on class ${g.cls}.`);
    assert.doesNotThrow(() => g.fn({ ...req, master: true }));
  }
});

test('moralisGoServerInfo: name, version and features for anybody; parse-server, database and what is off for the master key', async () => {
  await registered.ready;
  const pkg = require('../package.json');
  const publicAnswer = await call('moralisGoServerInfo', { master: false });
  assert.deepEqual(Object.keys(publicAnswer), ['name', 'version', 'features']);
  assert.equal(publicAnswer.name, 'moralis-go-server');
  assert.equal(publicAnswer.version, pkg.version);
  for (const f of ['tickets', 'signIn', 'recordSession', 'serverTime', 'web3', 'sessionIndexes', 'txMark', 'livequeryRedis']) {
    assert.ok(publicAnswer.features.includes(f), `${f} in ${publicAnswer.features}`);
  }
  assert.ok(!publicAnswer.features.includes('idempotencyPurge'));
  const master = await call('moralisGoServerInfo', { master: true });
  assert.equal(master.parseServer, require('parse-server/package.json').version);
  assert.equal(master.database, 'unknown', 'no parse-server Config for this test app');
  assert.deepEqual(Object.keys(master.off), ['idempotencyPurge']);
  assert.match(master.off.idempotencyPurge, /call idempotency_delete_expired_records\(\)/);
  // The set-up made the classes and the _Session indexes through the schema API.
  assert.deepEqual(P.schemas.get('_Session').indexes, require('../lib/setup').SESSION_INDEXES);
  assert.ok(P.schemas.has('MoralisAuthTicket'));
});

test('registerCloud runs once per process, and its options are checked', () => {
  assert.throws(() => register.registerCloud({}), /registered already/);
  assert.throws(() => register.checkOptions({ ticketTTL: 5 }), /unknown option ticketTTL/);
  assert.throws(() => register.checkOptions({ ticketsPerClient: 2.5 }), /ticketsPerClient must be a positive integer, not 2.5/);
  assert.throws(() => register.checkOptions({ ticketTtlSeconds: 0 }), /ticketTtlSeconds must be a positive number/);
  assert.throws(() => register.checkOptions({ idempotencyPurgeSeconds: -1 }), /idempotencyPurgeSeconds must be a number of seconds/);
  assert.throws(() => register.checkOptions({ log: 'stderr' }), /log must be a function/);
  assert.throws(() => register.checkOptions([]), /takes an object of options/);
  const o = register.checkOptions({ ticketsPerClient: 3 });
  assert.equal(o.ticketsPerClient, 3);
  assert.equal(o.ticketTtlSeconds, 300);
  assert.equal(o.idempotencyPurgeSeconds, 60);
});

test('the oldest supported parse-server is checked by version', () => {
  assert.equal(register.olderThan('4.10.20', register.MIN_PARSE_SERVER), true);
  assert.equal(register.olderThan('5.6.0', register.MIN_PARSE_SERVER), false);
  assert.equal(register.olderThan('5.2.7', register.MIN_PARSE_SERVER), true);
  assert.equal(register.olderThan('10.0.0', '9.10.0'), false);
  assert.equal(register.olderThan('9.9.1', '9.10.0'), true);
});

// signInParams are well-formed moralisGoSignIn parameters.
const signInParams = () => ({
  provider: 'moralisEth',
  id: '0x' + 'ab'.repeat(20),
  installationId: 'inst-1',
  sessionToken: 'r:' + '0'.repeat(32),
  until: '2030-01-01T00:00:00.000Z',
  record: { key: 'f'.repeat(64), startedAt: '2029-12-31T00:00:00.000Z', chainId: '' },
});

test('moralisGoSignIn: the master key (not the read-only one), well-formed parameters', async () => {
  await assert.rejects(call('moralisGoSignIn', { master: false, params: signInParams() }), err => err.code === 119);
  await assert.rejects(call('moralisGoSignIn', { master: true, isReadOnly: true, params: signInParams() }), err => err.code === 119);
  for (const [field, value, text] of [
    ['provider', 'google', 'provider must be moralisEth or moralisSol'],
    ['sessionToken', 'r:xyz', 'sessionToken must be "r:" and 32 hex digits'],
    ['until', 'tomorrow', 'until must be an ISO date in UTC'],
    ['record', { key: 'short' }, 'record.key must be 64 hex digits'],
  ]) {
    await assert.rejects(call('moralisGoSignIn', { master: true, params: { ...signInParams(), [field]: value } }), err => err.code === 107 && err.message === `moralisGoSignIn: ${text}`);
  }
});

test('moralisGoSignIn answers useLogin "off: ..." when parse-server\'s Config is missing or changed', async () => {
  assert.equal(require('../lib/private').featureOff('signIn'), '', 'run with NODE_PATH at an install of parse-server (.devstack/server/node_modules)');
  // This test app has no parse-server Config.
  assert.deepEqual(await call('moralisGoSignIn', { master: true, params: signInParams() }), { useLogin: 'off: no parse-server Config for the app' });
  const config = { database: { find() {} } };
  assert.match((await call('moralisGoSignIn', { master: true, config, params: signInParams() })).useLogin, /^off: parse-server's Config changed: database\.create, database\.destroy, .* missing$/);
});

test('moralisGoSignIn: an internal failure is an error answer without its text, logged whole', async () => {
  const ours = require('../lib/auth').moralisEth;
  const config = {
    applicationId: 'registerTestApp',
    auth: {},
    database: {
      find() {
        throw new TypeError("Cannot read properties of undefined (reading 'applicationId')");
      },
      create() {},
      destroy() {},
      loadSchema() {},
    },
    filesController: { expandFilesInObject() {} },
    liveQueryController: { hasLiveQuery: () => false },
    authDataManager: { getValidatorForProvider: () => ({ adapter: ours }) },
  };
  lines.length = 0;
  await assert.rejects(call('moralisGoSignIn', { master: true, config, params: signInParams() }), err => {
    assert.equal(err.code, 1);
    assert.equal(err.message, 'moralisGoSignIn failed (see the parse-server log); sign in by the login');
    return true;
  });
  assert.equal(lines.length, 1);
  assert.match(lines[0], /moralisGoSignIn failed, the endpoint signs in by the login: TypeError: Cannot read properties of undefined/);
  // A Parse.Error from parse-server (a write it refused) is passed on as it is: not a refusal of the user.
  config.database.find = () => {
    throw new P.Error(P.Error.INTERNAL_SERVER_ERROR, 'database down');
  };
  await assert.rejects(call('moralisGoSignIn', { master: true, config, params: signInParams() }), err => err.message === 'database down');
});

test('moralisGoSignIn is off on parse-server 5 (its login has no provider policy nor adapter request)', () => {
  const { offReason } = require('../cloud/authsignin');
  assert.equal(offReason('5.6.0'), 'parse-server 5.6.0 is older than 6');
  assert.equal(offReason(''), 'parse-server (unknown version) is older than 6');
  assert.equal(offReason('6.5.11'), '');
});

'use strict';
// lib/setup.js (the package's classes, permissions and indexes through Parse.Schema), lib/private.js (the checked
// loader of parse-server's private modules) and lib/idempotency.js (the purge chosen per database adapter).
const test = require('node:test');
const assert = require('node:assert/strict');
const setup = require('../lib/setup');
const private_ = require('../lib/private');
const idempotency = require('../lib/idempotency');
const { fakeParse } = require('./fakeparse');

test('ensureClasses creates the classes master-only with their indexes, then writes nothing', async () => {
  const P = fakeParse();
  assert.deepEqual(await setup.ensureClasses(P), ['MoralisAuthTicket', 'MoralisAuthNonce', 'MoralisAuthSession', 'MoralisGoTxMark']);
  const mark = P.schemas.get('MoralisGoTxMark');
  assert.deepEqual(mark.classLevelPermissions.create, { '*': true }, 'the SDK creates marks with any key');
  assert.deepEqual(mark.classLevelPermissions.find, {});
  assert.deepEqual(Object.keys(mark.fields).sort(), ['expiresAt', 'fence', 'mark']);
  const ticket = P.schemas.get('MoralisAuthTicket');
  assert.deepEqual(ticket.classLevelPermissions, setup.MASTER_ONLY);
  assert.deepEqual(ticket.indexes, { ip_1: { ip: 1 }, claim_1: { claim: 1 }, MoralisAuthTicket_expiresAt: { expiresAt: 1 } });
  assert.equal(ticket.fields.secret.type, 'String');
  assert.deepEqual(P.schemas.get('MoralisAuthSession').indexes, { key_1: { key: 1 }, MoralisAuthSession_expiresAt: { expiresAt: 1 } });
  assert.deepEqual(P.schemas.get('MoralisAuthNonce').indexes, { MoralisAuthNonce_expiresAt: { expiresAt: 1 } }, 'the purge finds expired rows by index');
  const writes = () => P.calls.filter(c => c.op === 'schema.save' || c.op === 'schema.update').length;
  const before = writes();
  assert.deepEqual(await setup.ensureClasses(P), []);
  assert.equal(writes(), before, 'all in place: reads only');
});

test('ensureClass completes a class a client or an older version made: fields, indexes, permissions', async () => {
  const P = fakeParse();
  P.schemas.set('MoralisAuthTicket', {
    className: 'MoralisAuthTicket',
    fields: { secret: { type: 'String' } },
    indexes: { ip_1: { ip: 1 } },
    classLevelPermissions: { find: { '*': true }, get: { '*': true } },
  });
  assert.equal(await setup.ensureClass(P, 'MoralisAuthTicket', setup.CLASSES.MoralisAuthTicket), true);
  const s = P.schemas.get('MoralisAuthTicket');
  assert.deepEqual(s.classLevelPermissions, setup.MASTER_ONLY, 'open permissions closed');
  assert.deepEqual(Object.keys(s.indexes).sort(), ['MoralisAuthTicket_expiresAt', 'claim_1', 'ip_1']);
  assert.equal(s.fields.claim.type, 'String');
});

test('ensureSessionIndexes adds the three _Session indexes once, creating the class when missing', async () => {
  const P = fakeParse();
  assert.deepEqual(await setup.ensureSessionIndexes(P), ['_Session_sessionToken', '_Session_installationId', '_Session_user']);
  assert.deepEqual(P.schemas.get('_Session').indexes, setup.SESSION_INDEXES);
  assert.deepEqual(await setup.ensureSessionIndexes(P), []);
  // An existing _Session with one of them: the other two are added by an update.
  const Q = fakeParse();
  Q.schemas.set('_Session', { className: '_Session', fields: {}, indexes: { _Session_user: { user: 1 } } });
  assert.deepEqual(await setup.ensureSessionIndexes(Q), ['_Session_sessionToken', '_Session_installationId']);
  assert.equal(Q.calls.filter(c => c.op === 'schema.update').length, 1);
});

test('runSetup tries again after failures, with growing pauses, until the step succeeds', async () => {
  let n = 0;
  const pauses = [];
  const errors = [];
  const { promise } = setup.runSetup(
    async () => {
      if (++n < 4) {
        throw new Error(`not yet ${n}`);
      }
      return 'done';
    },
    { onError: (err, attempt) => errors.push([attempt, err.message]), setTimer: (fn, ms) => { pauses.push(ms); setImmediate(fn); return null; } }
  );
  assert.equal(await promise, 'done');
  assert.deepEqual(errors, [[1, 'not yet 1'], [2, 'not yet 2'], [3, 'not yet 3']]);
  assert.deepEqual(pauses, [500, 1000, 2000]);
});

test('the private-module loader: a missing module, a changed one and one broken on purpose turn features off with a reason', () => {
  // parse-server is reachable when NODE_PATH points at the stack's install; the checks then pass. Without it, every
  // module is missing. Either way a reason names the module.
  const off = private_.featureOff('signIn');
  if (off) {
    assert.match(off, /^parse-server\/lib\/\w+ (cannot be loaded|changed)/);
  }
  private_.breakModules(['RestWrite']);
  assert.match(private_.featureOff('signIn'), /parse-server\/lib\/(Config|triggers|Auth|RestWrite) /);
  assert.match(private_.load('RestWrite').reason, /^parse-server\/lib\/RestWrite changed: RestWrite\.createSession missing \(broken on purpose/);
  assert.equal(private_.get('RestWrite'), null);
  assert.throws(() => private_.breakModules(['NoSuchModule']), /no private module named "NoSuchModule"/);
  // Each check names what it missed.
  assert.equal(private_.MODULES.triggers.check({ triggerExists() {}, maybeRunTrigger() {}, inflate() {}, Types: { beforeLogin: 'beforeLogin', afterSave: 'afterSave' } }), '');
  assert.equal(private_.MODULES.triggers.check({ triggerExists() {}, inflate() {}, Types: {} }), 'maybeRunTrigger, Types.beforeLogin/afterSave missing');
  assert.equal(private_.MODULES.Auth.check({ Auth() {} }), 'checkIfUserHasProvidedConfiguredProvidersForLogin missing');
  assert.equal(private_.MODULES.Config.check({ get: () => ({}) }), '');
  assert.equal(private_.MODULES.RedisPubSub.check({ RedisPubSub: { createPublisher() {} } }), 'RedisPubSub.createPublisher/createSubscriber missing');
});

test('the _Idempotency purge is chosen by the database adapter in use', () => {
  const config = (adapterName, extra = {}) => ({
    idempotencyOptions: { paths: ['.*'], ttl: 300 },
    database: { adapter: new { [adapterName]: class {} }[adapterName](), destroy: async () => 0 },
    ...extra,
  });
  assert.deepEqual(idempotency.plan(config('PostgresStorageAdapter')), { mode: 'purge', reason: '' });
  assert.equal(idempotency.plan(config('MongoStorageAdapter')).mode, 'database');
  assert.match(idempotency.plan(config('MongoStorageAdapter')).reason, /TTL index/);
  const other = idempotency.plan(config('SomeOtherAdapter'));
  assert.equal(other.mode, 'off');
  assert.match(other.reason, /neither PostgreSQL nor MongoDB: delete the _Idempotency rows/);
  // Idempotency not enabled: nothing to purge.
  assert.match(idempotency.plan(config('PostgresStorageAdapter', { idempotencyOptions: { paths: [] } })).reason, /not enabled/);
  // No Config (lib/Config missing or changed): off, with what to run instead.
  const none = idempotency.plan(null, 'parse-server/lib/Config changed: Config.get missing');
  assert.equal(none.mode, 'off');
  assert.match(none.reason, /^parse-server\/lib\/Config changed: Config.get missing: call idempotency_delete_expired_records\(\)/);
  // A changed database controller on PostgreSQL.
  const changed = config('PostgresStorageAdapter');
  delete changed.database.destroy;
  assert.equal(idempotency.plan(changed).mode, 'off');
  // The kind by the databaseURI when the adapter's class is not known.
  assert.equal(idempotency.databaseKind({ databaseURI: 'postgresql://x/y' }), 'postgres');
  assert.equal(idempotency.databaseKind({ databaseURI: 'mongodb+srv://x/y' }), 'mongo');
  assert.equal(idempotency.databaseKind({ databaseURI: 'redis://x' }), 'unknown');
});

test('purgeIdempotency deletes the rows more than one TTL past their expiry, through the database controller', async () => {
  const calls = [];
  const db = { async destroy(cls, where, opts) { calls.push({ cls, where, opts }); return 4; } };
  const now = new Date(Date.UTC(2030, 0, 1, 0, 10));
  assert.equal(await idempotency.purgeIdempotency(db, 300, now), 4);
  assert.deepEqual(calls, [{ cls: '_Idempotency', where: { expire: { $lt: { __type: 'Date', iso: '2030-01-01T00:05:00.000Z' } } }, opts: {} }]);
  const none = { async destroy() { throw Object.assign(new Error('Object not found.'), { code: 101 }); } };
  assert.equal(await idempotency.purgeIdempotency(none, 300, now), 0);
  await assert.rejects(idempotency.purgeIdempotency({ async destroy() { throw new Error('connection lost'); } }, 300, now), /connection lost/);
});

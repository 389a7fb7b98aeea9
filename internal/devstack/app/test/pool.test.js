'use strict';
// Unit test of the stack's PostgreSQL pool setting (pool.js), read back through parse-server's own URI parser, as
// the stack's parse-server reads it. Run with the app's other tests:
// NODE_PATH=.devstack/server/node_modules node --test internal/devstack/app/test/
const test = require('node:test');
const assert = require('node:assert/strict');
const { keepPoolConnections } = require('../pool');
const { getDatabaseOptionsFromURI } = require('parse-server/lib/Adapters/Storage/Postgres/PostgresConfigParser');

test('the pool keeps its idle connections', () => {
  const uri = keepPoolConnections('postgres://postgres@127.0.0.1:5432/moralis');
  const o = getDatabaseOptionsFromURI(uri);
  assert.equal(o.idleTimeoutMillis, 0); // pg-pool: 0 is no idle timeout (undefined would be its 10 s)
  assert.equal(o.host, '127.0.0.1');
  assert.equal(o.port, 5432);
  assert.equal(o.database, 'moralis');
  assert.equal(o.user, 'postgres');
});

test('a URI that sets the idle timeout or other options keeps them', () => {
  const o = getDatabaseOptionsFromURI(keepPoolConnections('postgres://u:p@db:6543/app?idleTimeoutMillis=60000&max=20'));
  assert.equal(o.idleTimeoutMillis, 60000);
  assert.equal(o.max, 20);
  assert.equal(o.password, 'p');
});

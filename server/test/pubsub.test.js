'use strict';
// lib/pubsub.js: liveQueryRedis chooses the package's wrapper or parse-server's own pub/sub, closeLiveQueryClients
// closes a LiveQuery server's websockets so its clients catch up.
require('./fakeparse'); // parse-server's logger off
const test = require('node:test');
const assert = require('node:assert/strict');
const pubsub = require('../lib/pubsub');
const private_ = require('../lib/private');

test('closeLiveQueryClients closes every client websocket with 1012, and closes none of an unknown shape', () => {
  const closed = [];
  const ws = id => ({ close: (code, reason) => closed.push([id, code, reason]) });
  const server = { clients: new Map([[1, { parseWebSocket: { ws: ws('a') } }], [2, { parseWebSocket: { ws: ws('b') } }], [3, {}]]) };
  const lines = [];
  assert.equal(pubsub.closeLiveQueryClients(server, l => lines.push(l)), 2);
  assert.deepEqual(closed.map(c => c.slice(0, 2)), [['a', 1012], ['b', 1012]]);
  assert.match(closed[0][2], /reconnect and re-run your queries/);
  assert.equal(pubsub.closeLiveQueryClients(undefined, l => lines.push(l)), 0);
  assert.equal(pubsub.closeLiveQueryClients({ clients: {} }, l => lines.push(l)), 0, 'not the Map parse-server keeps');
  assert.deepEqual(lines.map(l => l.split(' ').slice(0, 3).join(' ')), ['moralis-go-server: closed 2', 'moralis-go-server: no LiveQuery', 'moralis-go-server: no LiveQuery']);
});

test('liveQueryRedis gives the package adapter, or parse-server\'s own redisURL with one line when RedisPubSub changed', () => {
  assert.equal(private_.featureOff('livequeryRedis'), '', 'run with NODE_PATH at an install of parse-server (.devstack/server/node_modules)');
  const ok = pubsub.liveQueryRedis('redis://127.0.0.1:1/0');
  assert.deepEqual(Object.keys(ok), ['pubSubAdapter']);
  assert.equal(typeof ok.pubSubAdapter.createPublisher, 'function');
  assert.equal(typeof ok.pubSubAdapter.createSubscriber, 'function');
  private_.breakModules(['RedisPubSub']);
  const lines = [];
  assert.deepEqual(pubsub.liveQueryRedis('redis://127.0.0.1:1/0', {}, l => lines.push(l)), { redisURL: 'redis://127.0.0.1:1/0' });
  assert.deepEqual(pubsub.liveQueryRedis('redis://127.0.0.1:1/0', {}, l => lines.push(l)), { redisURL: 'redis://127.0.0.1:1/0' });
  assert.equal(lines.length, 1);
  assert.match(lines[0], /parse-server's own Redis pub\/sub.*RedisPubSub changed/);
});

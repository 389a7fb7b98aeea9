'use strict';
// The atomic-batch proof's server half (lib/txmark.js), without a server: the mark trigger's checks, the type rule of
// moralisGoCheckWrites against parse-server's own texts, and the routes it reads a class from. The fence itself
// (moralisGoTxApplied against a real transaction) is tested from Go against the stack
// (client/settle_integration_test.go).
const test = require('node:test');
const assert = require('node:assert/strict');
global.Parse = global.Parse || require('parse/node');
const txmark = require('../lib/txmark');

// fakeMarkRequest is a beforeSave request for a new MoralisGoTxMark with fields, by the master key or not.
function fakeMarkRequest(fields, master = false) {
  const object = new Parse.Object('MoralisGoTxMark');
  for (const [k, v] of Object.entries(fields)) {
    object.set(k, v);
  }
  return { object, master };
}

test('the mark trigger takes a well-formed mark as the row id, with an expiry and an empty ACL', () => {
  const mark = 'abcdefghijklmnopqrstuvwx';
  const req = fakeMarkRequest({ mark });
  const before = Date.now();
  txmark.beforeSave(req);
  assert.equal(req.object.id, mark);
  const expires = req.object.get('expiresAt').getTime();
  assert.ok(expires >= before + 59 * 60 * 1000 && expires <= Date.now() + 61 * 60 * 1000, 'about an hour');
  assert.deepEqual(req.object.getACL().toJSON(), {});
  const fence = fakeMarkRequest({ mark, fence: true }, true);
  txmark.beforeSave(fence);
  assert.ok(fence.object.get('expiresAt').getTime() > Date.now() + 23 * 60 * 60 * 1000, 'a fence lives a day');
});

test('the mark trigger refuses a bad mark, a fence without the master key, other fields and updates', () => {
  for (const [fields, master, text] of [
    [{ mark: 'short' }, false, /24 letters and digits/],
    [{ mark: 'abcdefghijklmnopqrstuvw!' }, false, /24 letters and digits/],
    [{ mark: 5 }, false, /24 letters and digits/],
    [{}, false, /24 letters and digits/],
    [{ mark: 'abcdefghijklmnopqrstuvwx', fence: true }, false, /master key only/],
    [{ mark: 'abcdefghijklmnopqrstuvwx', fence: false }, true, /master key only/],
    [{ mark: 'abcdefghijklmnopqrstuvwx', other: 1 }, false, /unknown field other/],
  ]) {
    assert.throws(() => txmark.beforeSave(fakeMarkRequest(fields, master)), err => err.code === 142 && text.test(err.message), JSON.stringify(fields));
  }
  const update = fakeMarkRequest({ mark: 'abcdefghijklmnopqrstuvwx' });
  update.original = update.object;
  assert.throws(() => txmark.beforeSave(update), /never changed/);
});

test('typeOf gives the types parse-server checks a save body by', () => {
  const pointer = Parse.Object.fromJSON({ __type: 'Pointer', className: '_User', objectId: 'u1' });
  for (const [value, want] of [
    [true, 'Boolean'],
    ['x', 'String'],
    [1.5, 'Number'],
    [[1], 'Array'],
    [{ a: 1 }, 'Object'],
    [null, null],
    [{ __type: 'Pointer', className: 'Post', objectId: 'p' }, { type: 'Pointer', targetClass: 'Post' }],
    [pointer, { type: 'Pointer', targetClass: '_User' }],
    [{ __type: 'Relation', className: 'Post' }, { type: 'Relation', targetClass: 'Post' }],
    [{ __type: 'Date', iso: '2020-01-01T00:00:00.000Z' }, 'Date'],
    [new Date(), 'Date'],
    [{ __type: 'GeoPoint', latitude: 0, longitude: 0 }, 'GeoPoint'],
    [{ __type: 'Bytes', base64: 'AA==' }, 'Bytes'],
    [{ __op: 'Increment', amount: 1 }, 'Number'],
    [{ __op: 'Delete' }, null],
    [{ __op: 'AddUnique', objects: [1] }, 'Array'],
    [{ __op: 'AddRelation', objects: [{ __type: 'Pointer', className: 'Tag', objectId: 't' }] }, { type: 'Relation', targetClass: 'Tag' }],
    [{ __op: 'Batch', ops: [{ __op: 'RemoveRelation', objects: [pointer] }] }, { type: 'Relation', targetClass: '_User' }],
  ]) {
    assert.deepEqual(txmark.typeOf(value), want, JSON.stringify(value));
  }
  assert.throws(() => txmark.typeOf({ __type: 'Date' }), err => err.code === 111 && err.message === 'This is not a valid Date');
});

test('classOf reads the class a batch sub-request writes', () => {
  assert.equal(txmark.classOf('classes/GameScore'), 'GameScore');
  assert.equal(txmark.classOf('/parse/classes/GameScore/abc'), 'GameScore');
  assert.equal(txmark.classOf('users/u1'), '_User');
  assert.equal(txmark.classOf('/parse/roles'), '_Role');
  assert.equal(txmark.classOf('functions/x'), '');
  assert.equal(txmark.classOf('classes/Bad-Name'), '');
});

'use strict';
// The features registry that moralisGoServerInfo reports (lib/features.js).
const test = require('node:test');
const assert = require('node:assert/strict');
const features = require('../lib/features');

test('a feature is listed once on, and reported with its reason once off', () => {
  features.on('txMark');
  features.on('aaa');
  assert.deepEqual(features.list(), ['aaa', 'txMark']);
  assert.deepEqual(features.offReasons(), {});
  features.off('aaa', 'a private module changed');
  assert.deepEqual(features.list(), ['txMark']);
  assert.deepEqual(features.offReasons(), { aaa: 'a private module changed' });
});

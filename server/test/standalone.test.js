'use strict';
// The wallet adapters mounted without the package's cloud code (an app that gave `auth` but never required
// moralis-go-server/cloud): a sign-in is refused with the adapter's clear error, not a TypeError, and the ticket
// classes are made master-key only, once, with one log line saying what is missing.
const test = require('node:test');
const assert = require('node:assert/strict');
const { fakeParse } = require('./fakeparse');
const { secp256k1 } = require('@noble/curves/secp256k1');
const { hashPersonalMessage } = require('../lib/auth');

test('adapters without the cloud code: a clear refusal, the classes locked, one line', async () => {
  const P = fakeParse();
  global.Parse = P;
  const lines = [];
  const error = console.error;
  console.error = (...a) => lines.push(a.join(' '));
  try {
    const { moralisEth } = require('../lib/auth');
    const key = secp256k1.utils.randomPrivateKey();
    const pub = secp256k1.getPublicKey(key, false);
    const { keccak_256 } = require('@noble/hashes/sha3');
    const address = '0x' + Buffer.from(keccak_256(pub.subarray(1)).subarray(12)).toString('hex');
    const data = 'Moralis Authentication';
    const sig = secp256k1.sign(hashPersonalMessage(data), key);
    const signature = '0x' + Buffer.from(sig.toCompactRawBytes()).toString('hex') + (27 + sig.recovery).toString(16);
    for (let i = 0; i < 2; i++) {
      await assert.rejects(moralisEth.validateAuthData({ id: address, signature, data, ticket: 'abcdefghij' + 'S'.repeat(22) }), err => {
        assert.equal(err.code, 101);
        assert.equal(err.message, 'moralisEth: ticket unknown, used or expired');
        return true;
      });
    }
    for (let i = 0; i < 50 && !P.schemas.has('MoralisAuthSession'); i++) {
      await new Promise(r => setTimeout(r, 10));
    }
    assert.deepEqual(P.schemas.get('MoralisAuthTicket').classLevelPermissions, require('../lib/setup').MASTER_ONLY);
    assert.equal(lines.filter(l => l.includes('without the package\'s cloud code')).length, 1, lines.join('\n'));
  } finally {
    console.error = error;
  }
});

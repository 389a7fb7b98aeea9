'use strict';
// Unit tests of the wallet auth adapters and the mail adapter, against published vectors and
// signatures made here with fixed keys. Run: NODE_PATH=.devstack/server/node_modules node --test
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { secp256k1 } = require('@noble/curves/secp256k1');
const { keccak_256 } = require('@noble/hashes/sha3');
const bs58 = require('bs58').default;
const { moralisEth, moralisSol, recoverPersonalSigner, hashPersonalMessage } = require('../auth');
const { JsonLineMailAdapter } = require('../mail');

// web3.js documentation vector: web3.eth.accounts.sign('Some data', key).
const WEB3_KEY = '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
const WEB3_ADDR = '0x2c7536E3605D9C16a7a3D7b1898e529396a65c23';
const WEB3_HASH = '1da44b586eb0729ff70a73c326926f6ed5a25f5b056e7f47fbc6e58d86871655';
const WEB3_SIG =
  '0xb91467e570a6466aa9e9876cbcd013baba02900b8979d43fe208a4a4f339f5fd6007e74cd82e037b800186422fc2da167c747ef045e5d18a5f5d4300f8e1a0291c';

function addressOf(privHex) {
  const pub = secp256k1.getPublicKey(privHex, false);
  return '0x' + Buffer.from(keccak_256(pub.subarray(1)).subarray(12)).toString('hex');
}

function personalSign(privHex, message, vOffset = 27) {
  const sig = secp256k1.sign(hashPersonalMessage(message), privHex);
  return '0x' + sig.toCompactHex() + (sig.recovery + vOffset).toString(16).padStart(2, '0');
}

async function rejectsWith(fn, code, message) {
  await assert.rejects(
    async () => fn(),
    err => {
      assert.equal(err.code, code);
      assert.equal(err.message, message);
      return true;
    }
  );
}

test('EIP-191 hash and recovery match the web3.js vector', () => {
  assert.equal(Buffer.from(hashPersonalMessage('Some data')).toString('hex'), WEB3_HASH);
  assert.equal(recoverPersonalSigner('Some data', WEB3_SIG), WEB3_ADDR.toLowerCase());
  assert.equal(addressOf(WEB3_KEY), WEB3_ADDR.toLowerCase());
});

test('moralisEth accepts a real signature, checksummed id, v 27/28 and 0/1', async () => {
  await moralisEth.validateAuthData({ id: WEB3_ADDR, signature: WEB3_SIG, data: 'Some data' });
  const msg = 'Moralis Authentication\n\nId: testAppId:2026-11-21T22:38:01.828Z';
  const addr = addressOf(WEB3_KEY);
  await moralisEth.validateAuthData({ id: addr, signature: personalSign(WEB3_KEY, msg, 27), data: msg });
  await moralisEth.validateAuthData({ id: addr, signature: personalSign(WEB3_KEY, msg, 0), data: msg });
  // Multi-byte UTF-8: the length in the prefix counts bytes, not characters.
  const utf = 'Grüße ✓';
  await moralisEth.validateAuthData({ id: addr, signature: personalSign(WEB3_KEY, utf, 27), data: utf });
});

test('moralisEth rejects a wrong signer, tampered data and malformed signatures', async () => {
  const other = '0000000000000000000000000000000000000000000000000000000000000001';
  const otherAddr = addressOf(other);
  assert.equal(otherAddr, '0x7e5f4552091a69125d5dfcb7b8c2659029395bdf'); // well-known address of key 1
  const mismatch = 'moralisEth: signature does not match address';
  await rejectsWith(() => moralisEth.validateAuthData({ id: otherAddr, signature: WEB3_SIG, data: 'Some data' }), 101, mismatch);
  await rejectsWith(() => moralisEth.validateAuthData({ id: WEB3_ADDR, signature: WEB3_SIG, data: 'Some datA' }), 101, mismatch);
  await rejectsWith(() => moralisEth.validateAuthData({ id: WEB3_ADDR, signature: '0x1234', data: 'Some data' }), 101, mismatch);
  const badV = WEB3_SIG.slice(0, -2) + '05';
  await rejectsWith(() => moralisEth.validateAuthData({ id: WEB3_ADDR, signature: badV, data: 'Some data' }), 101, mismatch);
  const zeroR = '0x' + '00'.repeat(64) + '1b';
  await rejectsWith(() => moralisEth.validateAuthData({ id: WEB3_ADDR, signature: zeroR, data: 'Some data' }), 101, mismatch);
});

test('moralisEth requires id, signature and data', async () => {
  const missing = 'moralisEth: authData requires id, signature, data';
  for (const authData of [undefined, {}, { id: WEB3_ADDR, signature: WEB3_SIG }, { id: WEB3_ADDR, signature: '', data: 'x' }, { id: 1, signature: WEB3_SIG, data: 'x' }]) {
    await rejectsWith(() => moralisEth.validateAuthData(authData), 101, missing);
  }
});

// RFC 8032 section 7.1, TEST 2 (message is the single byte 0x72 = "r").
const RFC_PUB = '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c';
const RFC_SIG =
  '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00';

function ed25519FromSeed(seedHex) {
  // PKCS#8 DER prefix for a raw 32-byte Ed25519 seed.
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(seedHex, 'hex')]);
  const priv = crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  const jwk = crypto.createPublicKey(priv).export({ format: 'jwk' });
  return { priv, address: bs58.encode(Buffer.from(jwk.x, 'base64url')) };
}

test('moralisSol accepts the RFC 8032 vector in base58, hex, 0x-hex and base64', async () => {
  const id = bs58.encode(Buffer.from(RFC_PUB, 'hex'));
  const sig = Buffer.from(RFC_SIG, 'hex');
  for (const signature of [bs58.encode(sig), RFC_SIG, '0x' + RFC_SIG, sig.toString('base64'), sig.toString('base64url')]) {
    await moralisSol.validateAuthData({ id, signature, data: 'r' });
  }
});

test('moralisSol with a key made here: accepts, then rejects tampering and other keys', async () => {
  const a = ed25519FromSeed('11'.repeat(32));
  const b = ed25519FromSeed('22'.repeat(32));
  const msg = 'Moralis Authentication\n\nId: testAppId:2026-11-21T22:38:01.828Z';
  const sig = crypto.sign(null, Buffer.from(msg, 'utf8'), a.priv);
  await moralisSol.validateAuthData({ id: a.address, signature: bs58.encode(sig), data: msg });
  const mismatch = 'moralisSol: signature does not match address';
  await rejectsWith(() => moralisSol.validateAuthData({ id: a.address, signature: bs58.encode(sig), data: msg + '!' }), 101, mismatch);
  await rejectsWith(() => moralisSol.validateAuthData({ id: b.address, signature: bs58.encode(sig), data: msg }), 101, mismatch);
  await rejectsWith(() => moralisSol.validateAuthData({ id: 'not-base58!', signature: bs58.encode(sig), data: msg }), 101, mismatch);
  await rejectsWith(() => moralisSol.validateAuthData({ id: a.address, signature: 'zz', data: msg }), 101, mismatch);
  const missing = 'moralisSol: authData requires id, signature, data';
  await rejectsWith(() => moralisSol.validateAuthData({ id: a.address, data: msg }), 101, missing);
  await rejectsWith(() => moralisSol.validateAuthData(null), 101, missing);
});

test('mail adapter appends one JSON line per mail', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'devstack-mail-'));
  const file = path.join(dir, 'mail.jsonl');
  const adapter = new JsonLineMailAdapter(file);
  const user = { get: k => ({ username: 'alice', email: 'alice@example.com' })[k] };
  await adapter.sendMail({ to: 'x@example.com', subject: 's', text: 't' });
  await adapter.sendPasswordResetEmail({ link: 'http://127.0.0.1/reset?token=abc', appName: 'app', user });
  await adapter.sendVerificationEmail({ link: 'http://127.0.0.1/verify?token=def', appName: 'app', user });
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map(l => JSON.parse(l));
  assert.deepEqual(lines.map(l => l.kind), ['mail', 'passwordReset', 'verifyEmail']);
  assert.equal(lines[1].to, 'alice@example.com');
  assert.equal(lines[1].link, 'http://127.0.0.1/reset?token=abc');
  assert.match(lines[1].text, /your username is 'alice'/);
  assert.equal(lines[2].subject, 'Please verify your e-mail for app');
  fs.rmSync(dir, { recursive: true });
});

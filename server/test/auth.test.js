'use strict';
// Unit tests of the wallet auth adapters, against published vectors and signatures made here with fixed keys.
// Run: NODE_PATH=.devstack/server/node_modules node --test server/test/
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const { secp256k1 } = require('@noble/curves/secp256k1');
const { keccak_256 } = require('@noble/hashes/sha3');
const bs58 = require('bs58').default;
const { ed25519, ED25519_TORSION_SUBGROUP } = require('@noble/curves/ed25519');
const { makeAdapters, recoverPersonalSigner, hashPersonalMessage, verifySolana, solanaPublicKey } = require('../lib/auth');

// fakeTickets stands in for the database: issue(chain, address, message, contract) returns a ticket that consume
// accepts once, for exactly that chain, address and message; a consume that asks for a contract-account ticket
// matches only a ticket issued as one.
function fakeTickets() {
  const live = new Map();
  let n = 0;
  const store = {
    calls: 0,
    issue(chain, address, message, contract = false) {
      const ticket = String(++n).padStart(10, '0') + 'S'.repeat(22);
      live.set(ticket, { chain, address, message, contract });
      return ticket;
    },
    contractOnly: 0,
    async consume(request, t) {
      store.calls++;
      if (t.contract) {
        store.contractOnly++;
      }
      const b = live.get(t.ticket);
      if (!b || b.chain !== t.chain || b.address !== t.address || b.message !== t.message || (t.contract && !b.contract)) {
        return false;
      }
      live.delete(t.ticket);
      return true;
    },
  };
  return store;
}

// adapters with a fresh fake ticket store; withTicket(authData, chain) adds a ticket issued for it.
function setup() {
  const store = fakeTickets();
  const { moralisEth, moralisSol } = makeAdapters({ consume: store.consume });
  const withTicket = (authData, chain) => ({
    ...authData,
    ticket: store.issue(chain, chain === 'evm' ? authData.id.toLowerCase() : authData.id, authData.data),
  });
  return { store, moralisEth, moralisSol, eth: a => withTicket(a, 'evm'), sol: a => withTicket(a, 'solana') };
}

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
  const { moralisEth, eth } = setup();
  await moralisEth.validateAuthData(eth({ id: WEB3_ADDR, signature: WEB3_SIG, data: 'Some data' }));
  const msg = 'Moralis Authentication\n\nId: testAppId:2026-11-21T22:38:01.828Z';
  const addr = addressOf(WEB3_KEY);
  await moralisEth.validateAuthData(eth({ id: addr, signature: personalSign(WEB3_KEY, msg, 27), data: msg }));
  await moralisEth.validateAuthData(eth({ id: addr, signature: personalSign(WEB3_KEY, msg, 0), data: msg }));
  // Multi-byte UTF-8: the length in the prefix counts bytes, not characters.
  const utf = 'Grüße ✓';
  await moralisEth.validateAuthData(eth({ id: addr, signature: personalSign(WEB3_KEY, utf, 27), data: utf }));
});

test('moralisEth rejects a wrong signer, tampered data and malformed signatures', async () => {
  const { moralisEth, eth, store } = setup();
  const other = '0000000000000000000000000000000000000000000000000000000000000001';
  const otherAddr = addressOf(other);
  assert.equal(otherAddr, '0x7e5f4552091a69125d5dfcb7b8c2659029395bdf'); // well-known address of key 1
  const mismatch = 'moralisEth: signature does not match address';
  await rejectsWith(() => moralisEth.validateAuthData(eth({ id: otherAddr, signature: WEB3_SIG, data: 'Some data' })), 101, mismatch);
  await rejectsWith(() => moralisEth.validateAuthData(eth({ id: WEB3_ADDR, signature: WEB3_SIG, data: 'Some datA' })), 101, mismatch);
  await rejectsWith(() => moralisEth.validateAuthData(eth({ id: WEB3_ADDR, signature: '0x1234', data: 'Some data' })), 101, mismatch);
  const badV = WEB3_SIG.slice(0, -2) + '05';
  await rejectsWith(() => moralisEth.validateAuthData(eth({ id: WEB3_ADDR, signature: badV, data: 'Some data' })), 101, mismatch);
  const zeroR = '0x' + '00'.repeat(64) + '1b';
  await rejectsWith(() => moralisEth.validateAuthData(eth({ id: WEB3_ADDR, signature: zeroR, data: 'Some data' })), 101, mismatch);
  // A refused signature can only ask for a contract-account ticket (which the endpoint issues for contract accounts
  // alone, after an on-chain check): it cannot burn an ordinary ticket.
  assert.equal(store.calls, store.contractOnly);
});

test('moralisEth: a signature ecrecover cannot check signs in only with a contract-account ticket', async () => {
  const { moralisEth, store } = setup();
  const account = '0x' + 'ab'.repeat(20); // a smart-contract account: its signature does not recover to it
  const data = 'Moralis Authentication\n\nId: app:secret';
  const sig = personalSign('0000000000000000000000000000000000000000000000000000000000000001', data);
  const mismatch = 'moralisEth: signature does not match address';
  const ordinary = store.issue('evm', account, data);
  await rejectsWith(() => moralisEth.validateAuthData({ id: account, signature: sig, data, ticket: ordinary }), 101, mismatch);
  const contract = store.issue('evm', account, data, true);
  assert.deepEqual(await moralisEth.validateAuthData({ id: account, signature: sig, data, ticket: contract }), { save: { id: account } });
  await rejectsWith(() => moralisEth.validateAuthData({ id: account, signature: sig, data, ticket: contract }), 101, mismatch);
  const other = store.issue('evm', '0x' + 'cd'.repeat(20), data, true);
  await rejectsWith(() => moralisEth.validateAuthData({ id: account, signature: sig, data, ticket: other }), 101, mismatch);
});

test('moralisEth: the ticket is required, consumed once, bound to address, chain and text', async () => {
  const { moralisEth, moralisSol, store } = setup();
  const msg = 'Moralis Authentication\n\nId: testAppId:abc';
  const addr = addressOf(WEB3_KEY);
  const authData = { id: addr, signature: personalSign(WEB3_KEY, msg), data: msg };
  await rejectsWith(() => moralisEth.validateAuthData(authData), 101, 'moralisEth: authData requires a ticket issued by this server');
  const used = 'moralisEth: ticket unknown, used or expired';
  await rejectsWith(() => moralisEth.validateAuthData({ ...authData, ticket: 'x'.repeat(32) }), 101, used);
  // Issued for another address, another chain, another text: refused (and still good for its own).
  const other = addressOf('0000000000000000000000000000000000000000000000000000000000000001');
  for (const t of [store.issue('evm', other, msg), store.issue('solana', addr, msg), store.issue('evm', addr, msg + ' ')]) {
    await rejectsWith(() => moralisEth.validateAuthData({ ...authData, ticket: t }), 101, used);
  }
  const ticket = store.issue('evm', addr, msg);
  const saved = await moralisEth.validateAuthData({ ...authData, ticket });
  assert.deepEqual(saved, { save: { id: addr } }, 'only the address is stored');
  // A returning wallet (parse-server passes the user it found as request.original): nothing is written.
  const found = authDataOf => ({ original: { get: k => (k === 'authData' ? authDataOf : undefined) } });
  const again = store.issue('evm', addr, msg);
  assert.deepEqual(await moralisEth.validateAuthData({ ...authData, ticket: again }, {}, found({ moralisEth: { id: addr } })), { doNotSave: true });
  // A user whose stored authData is anything else (another address, extra fields) is given the address alone.
  for (const stored of [{ moralisEth: { id: other } }, { moralisEth: { id: addr, signature: 'x' } }, {}, undefined]) {
    const t = store.issue('evm', addr, msg);
    assert.deepEqual(await moralisEth.validateAuthData({ ...authData, ticket: t }, {}, found(stored)), { save: { id: addr } });
  }
  // The captured authData, replayed: refused, on either provider.
  await rejectsWith(() => moralisEth.validateAuthData({ ...authData, ticket }), 101, used);
  await rejectsWith(() => moralisSol.validateAuthData({ ...authData, ticket }), 101, 'moralisSol: public key cannot sign (not a canonical point of large order)');
  // Concurrent submissions of one ticket: exactly one wins.
  const t2 = store.issue('evm', addr, msg);
  const results = await Promise.allSettled(Array.from({ length: 10 }, () => moralisEth.validateAuthData({ ...authData, ticket: t2 })));
  assert.equal(results.filter(r => r.status === 'fulfilled').length, 1);
});

test('moralisEth requires id, signature and data', async () => {
  const { moralisEth } = setup();
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
  const { moralisSol, sol } = setup();
  const id = bs58.encode(Buffer.from(RFC_PUB, 'hex'));
  const sig = Buffer.from(RFC_SIG, 'hex');
  for (const signature of [bs58.encode(sig), RFC_SIG, '0x' + RFC_SIG, sig.toString('base64'), sig.toString('base64url')]) {
    await moralisSol.validateAuthData(sol({ id, signature, data: 'r' }));
  }
});

test('moralisSol with a key made here: accepts, then rejects tampering and other keys', async () => {
  const { moralisSol, sol, store } = setup();
  const a = ed25519FromSeed('11'.repeat(32));
  const b = ed25519FromSeed('22'.repeat(32));
  const msg = 'Moralis Authentication\n\nId: testAppId:2026-11-21T22:38:01.828Z';
  const sig = crypto.sign(null, Buffer.from(msg, 'utf8'), a.priv);
  const good = sol({ id: a.address, signature: bs58.encode(sig), data: msg });
  assert.deepEqual(await moralisSol.validateAuthData(good), { save: { id: a.address } });
  await rejectsWith(() => moralisSol.validateAuthData(good), 101, 'moralisSol: ticket unknown, used or expired');
  const calls = store.calls;
  const mismatch = 'moralisSol: signature does not match address';
  await rejectsWith(() => moralisSol.validateAuthData(sol({ id: a.address, signature: bs58.encode(sig), data: msg + '!' })), 101, mismatch);
  await rejectsWith(() => moralisSol.validateAuthData(sol({ id: b.address, signature: bs58.encode(sig), data: msg })), 101, mismatch);
  await rejectsWith(() => moralisSol.validateAuthData(sol({ id: a.address, signature: 'zz', data: msg })), 101, mismatch);
  const cannot = 'moralisSol: public key cannot sign (not a canonical point of large order)';
  await rejectsWith(() => moralisSol.validateAuthData(sol({ id: 'not-base58!', signature: bs58.encode(sig), data: msg })), 101, cannot);
  assert.equal(store.calls, calls, 'refused signatures never reach the ticket store');
  const missing = 'moralisSol: authData requires id, signature, data';
  await rejectsWith(() => moralisSol.validateAuthData({ id: a.address, data: msg }), 101, missing);
  await rejectsWith(() => moralisSol.validateAuthData(null), 101, missing);
});

// The endpoint's Sign-In with Solana texts (multi-line, signed as written by the wallet) need no change in the
// adapter: the signature is over the exact text and the ticket was issued for exactly that text.
test('moralisSol accepts a Sign-In with Solana text with its ticket, once, and not a byte changed', async () => {
  const { moralisSol, sol } = setup();
  const a = ed25519FromSeed('33'.repeat(32));
  const msg = `app.example wants you to sign in with your Solana account:\n${a.address}\n\nMoralis Authentication\n\n` +
    'URI: https://app.example\nVersion: 1\nChain ID: mainnet\nNonce: abcDEF12345\nIssued At: 2026-11-26T12:00:00.000Z\n' +
    'Expiration Time: 2026-11-26T12:05:00.000Z';
  const sig = bs58.encode(crypto.sign(null, Buffer.from(msg, 'utf8'), a.priv));
  const good = sol({ id: a.address, signature: sig, data: msg });
  assert.deepEqual(await moralisSol.validateAuthData(good), { save: { id: a.address } });
  await rejectsWith(() => moralisSol.validateAuthData(good), 101, 'moralisSol: ticket unknown, used or expired');
  const edited = msg.replace('Chain ID: mainnet', 'Chain ID: devnet');
  await rejectsWith(() => moralisSol.validateAuthData(sol({ id: a.address, signature: sig, data: edited })), 101,
    'moralisSol: signature does not match address');
});

// OpenSSL (crypto.verify) accepts a "signature" with no private key for every small-order public key: R a
// small-order point, S = 0. These vectors show the attack is real, then that the adapter refuses it.
function forgeSmallOrder(pub, msg) {
  const key = crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(pub).toString('base64url') }, format: 'jwk' });
  for (const r of ED25519_TORSION_SUBGROUP) {
    const sig = Buffer.concat([Buffer.from(r, 'hex'), Buffer.alloc(32)]);
    try {
      if (crypto.verify(null, msg, key, sig)) return sig;
    } catch (e) {
      // not accepted
    }
  }
  return null;
}

test('moralisSol refuses all 8 small-order public keys (keyless forgeries)', async () => {
  assert.equal(bs58.encode(Buffer.alloc(32)), '11111111111111111111111111111111');
  assert.equal(ED25519_TORSION_SUBGROUP.length, 8);
  const { moralisSol, sol, store } = setup();
  for (const hex of ED25519_TORSION_SUBGROUP) {
    const pub = Buffer.from(hex, 'hex');
    const id = bs58.encode(pub);
    let forged = null;
    let msg;
    for (let i = 0; i < 64 && !forged; i++) {
      msg = `Moralis Authentication\n\nId: testAppId:nonce${i}`;
      forged = forgeSmallOrder(pub, Buffer.from(msg));
    }
    assert.ok(forged, `OpenSSL accepts a forgery for ${hex}`);
    assert.equal(solanaPublicKey(id), null);
    assert.equal(verifySolana(msg, bs58.encode(forged), id), false);
    await rejectsWith(() => moralisSol.validateAuthData(sol({ id, signature: bs58.encode(forged), data: msg })), 101,
      'moralisSol: public key cannot sign (not a canonical point of large order)');
  }
  assert.equal(store.calls, 0);
});

test('moralisSol refuses non-canonical keys and R, small-order R and S >= L; real keys still verify', () => {
  const a = ed25519FromSeed('33'.repeat(32));
  const msg = 'Moralis Authentication\n\nId: testAppId:xyz';
  const sig = crypto.sign(null, Buffer.from(msg), a.priv);
  assert.equal(verifySolana(msg, bs58.encode(sig), a.address), true);
  const P = (1n << 255n) - 19n;
  const le = n => Buffer.from(n.toString(16).padStart(64, '0'), 'hex').reverse();
  const nonCanonical = [];
  for (let k = 0n; k < 19n; k++) {
    const b = le(P + k);
    nonCanonical.push(b, Buffer.concat([b.subarray(0, 31), Buffer.from([b[31] | 0x80])]));
  }
  const negZero = Buffer.from(ED25519_TORSION_SUBGROUP[0], 'hex'); // the identity with the sign bit: x = -0
  negZero[31] |= 0x80;
  nonCanonical.push(negZero);
  for (const enc of nonCanonical) {
    assert.equal(solanaPublicKey(bs58.encode(enc)), null, `key ${enc.toString('hex')}`);
    const r = Buffer.concat([enc, sig.subarray(32)]);
    assert.equal(verifySolana(msg, bs58.encode(r), a.address), false, `R ${enc.toString('hex')}`);
  }
  for (const hex of ED25519_TORSION_SUBGROUP) {
    const r = Buffer.concat([Buffer.from(hex, 'hex'), sig.subarray(32)]);
    assert.equal(verifySolana(msg, bs58.encode(r), a.address), false, `small-order R ${hex}`);
  }
  const L = ed25519.Point.Fn.ORDER;
  const s = BigInt('0x' + Buffer.from(sig.subarray(32)).reverse().toString('hex'));
  for (const bad of [s + L, L, (1n << 256n) - 1n]) {
    if (bad >= 1n << 256n) continue;
    const forged = Buffer.concat([sig.subarray(0, 32), le(bad)]);
    assert.equal(verifySolana(msg, bs58.encode(forged), a.address), false, `S = ${bad}`);
  }
  // 100 random keys still sign in.
  for (let i = 0; i < 100; i++) {
    const k = ed25519FromSeed(crypto.randomBytes(32).toString('hex'));
    const m = `m${i}`;
    assert.equal(verifySolana(m, bs58.encode(crypto.sign(null, Buffer.from(m), k.priv)), k.address), true);
  }
});

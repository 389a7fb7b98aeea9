'use strict';
// Makes wallet authData for the smoke test, with real keys:
//   node sign.js eth <private key hex | random> <message>          -> {"id","signature","data"}
//   node sign.js sol <32-byte seed hex | random> <message> <enc>    -> {"id","signature","data"}; enc base58|hex|base64
// Output is one JSON line on stdout.
const crypto = require('crypto');
const { secp256k1 } = require('@noble/curves/secp256k1');
const { keccak_256 } = require('@noble/hashes/sha3');
const bs58 = require('bs58').default;
const { hashPersonalMessage } = require('moralis-go-server');

function usage() {
  console.error('usage: sign.js eth <keyhex|random> <message> | sign.js sol <seedhex|random> <message> <base58|hex|base64>');
  process.exit(2);
}

const [kind, keyArg, message, enc = 'base58'] = process.argv.slice(2);
if (!kind || !keyArg || message === undefined) {
  usage();
}
const key = keyArg === 'random' ? crypto.randomBytes(32).toString('hex') : keyArg;
if (!/^[0-9a-fA-F]{64}$/.test(key)) {
  console.error('sign.js: key must be 64 hex digits or "random"');
  process.exit(2);
}

if (kind === 'eth') {
  const pub = secp256k1.getPublicKey(key, false);
  const id = '0x' + Buffer.from(keccak_256(pub.subarray(1)).subarray(12)).toString('hex');
  const sig = secp256k1.sign(hashPersonalMessage(message), key);
  const signature = '0x' + sig.toCompactHex() + (sig.recovery + 27).toString(16);
  console.log(JSON.stringify({ id, signature, data: message }));
} else if (kind === 'sol') {
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(key, 'hex')]);
  const priv = crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  const x = crypto.createPublicKey(priv).export({ format: 'jwk' }).x;
  const id = bs58.encode(Buffer.from(x, 'base64url'));
  const sig = crypto.sign(null, Buffer.from(message, 'utf8'), priv);
  const signature = enc === 'hex' ? sig.toString('hex') : enc === 'base64' ? sig.toString('base64') : bs58.encode(sig);
  console.log(JSON.stringify({ id, signature, data: message }));
} else {
  usage();
}

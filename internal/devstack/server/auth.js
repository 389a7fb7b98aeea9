'use strict';
// Wallet auth adapters in the shape of parse-server's custom auth adapter interface
// (validateAuthData / validateAppId), as a Moralis v1 server had them:
//   moralisEth: authData {id: 0x address, signature: 65-byte hex personal_sign, data: signed text}
//   moralisSol: authData {id: base58 ed25519 public key, signature: base58|hex|base64, data: signed text}
// Failures throw Parse.Error 101 (OBJECT_NOT_FOUND), so parse-server answers 404 {"code":101,...}.
const crypto = require('crypto');
const { secp256k1 } = require('@noble/curves/secp256k1');
const { keccak_256 } = require('@noble/hashes/sha3');
const bs58 = require('bs58').default;

const OBJECT_NOT_FOUND = 101;

// parseError builds a Parse.Error when parse-server has installed the global Parse (always the case
// inside the server); outside it (unit tests) a plain Error carrying the same code and message.
function parseError(code, message) {
  const P = global.Parse;
  if (P && typeof P.Error === 'function') {
    return new P.Error(code, message);
  }
  const err = new Error(message);
  err.code = code;
  return err;
}

function hasFields(authData) {
  return (
    authData &&
    typeof authData === 'object' &&
    ['id', 'signature', 'data'].every(k => typeof authData[k] === 'string' && authData[k] !== '')
  );
}

// hashPersonalMessage returns keccak256("\x19Ethereum Signed Message:\n" + len + message) (EIP-191).
function hashPersonalMessage(message) {
  const msg = Buffer.from(message, 'utf8');
  const prefix = Buffer.from(`\x19Ethereum Signed Message:\n${msg.length}`, 'utf8');
  return keccak_256(Buffer.concat([prefix, msg]));
}

// recoverPersonalSigner returns the lower-case 0x address that produced signature over message, or
// null when the signature is malformed or recovers no point.
function recoverPersonalSigner(message, signature) {
  const hex = signature.startsWith('0x') || signature.startsWith('0X') ? signature.slice(2) : signature;
  if (!/^[0-9a-fA-F]{130}$/.test(hex)) {
    return null;
  }
  const sig = Buffer.from(hex, 'hex');
  let v = sig[64];
  if (v >= 27) {
    v -= 27;
  }
  if (v !== 0 && v !== 1) {
    return null;
  }
  try {
    const pub = secp256k1.Signature.fromCompact(sig.subarray(0, 64))
      .addRecoveryBit(v)
      .recoverPublicKey(hashPersonalMessage(message))
      .toRawBytes(false);
    const addr = keccak_256(pub.subarray(1)).subarray(12);
    return '0x' + Buffer.from(addr).toString('hex');
  } catch (e) {
    return null;
  }
}

const moralisEth = {
  validateAuthData(authData) {
    if (!hasFields(authData)) {
      throw parseError(OBJECT_NOT_FOUND, 'moralisEth: authData requires id, signature, data');
    }
    const signer = recoverPersonalSigner(authData.data, authData.signature);
    if (signer === null || signer !== authData.id.toLowerCase()) {
      throw parseError(OBJECT_NOT_FOUND, 'moralisEth: signature does not match address');
    }
    return Promise.resolve();
  },
  validateAppId() {
    return Promise.resolve();
  },
};

// signatureCandidates decodes a 64-byte ed25519 signature given as hex (optional 0x), base58 or
// base64 (standard or URL-safe); every decoding that yields 64 bytes is a candidate.
function signatureCandidates(s) {
  const out = [];
  const hex = s.startsWith('0x') ? s.slice(2) : s;
  if (/^[0-9a-fA-F]{128}$/.test(hex)) {
    out.push(Buffer.from(hex, 'hex'));
  }
  if (/^[1-9A-HJ-NP-Za-km-z]+$/.test(s)) {
    try {
      const b = Buffer.from(bs58.decode(s));
      if (b.length === 64) {
        out.push(b);
      }
    } catch (e) {
      // not base58
    }
  }
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(s)) {
    const b = Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (b.length === 64) {
      out.push(b);
    }
  }
  return out;
}

// ed25519PublicKey turns a base58 Solana address into a KeyObject, or null when it is not 32 bytes.
function ed25519PublicKey(address) {
  let raw;
  try {
    raw = Buffer.from(bs58.decode(address));
  } catch (e) {
    return null;
  }
  if (raw.length !== 32) {
    return null;
  }
  try {
    return crypto.createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
      format: 'jwk',
    });
  } catch (e) {
    return null;
  }
}

// verifySolana reports whether signature (base58, hex or base64) is address's ed25519 signature
// over the UTF-8 bytes of message.
function verifySolana(message, signature, address) {
  const key = ed25519PublicKey(address);
  if (key === null) {
    return false;
  }
  const msg = Buffer.from(message, 'utf8');
  return signatureCandidates(signature).some(sig => {
    try {
      return crypto.verify(null, msg, key, sig);
    } catch (e) {
      return false;
    }
  });
}

const moralisSol = {
  validateAuthData(authData) {
    if (!hasFields(authData)) {
      throw parseError(OBJECT_NOT_FOUND, 'moralisSol: authData requires id, signature, data');
    }
    if (!verifySolana(authData.data, authData.signature, authData.id)) {
      throw parseError(OBJECT_NOT_FOUND, 'moralisSol: signature does not match address');
    }
    return Promise.resolve();
  },
  validateAppId() {
    return Promise.resolve();
  },
};

module.exports = { moralisEth, moralisSol, recoverPersonalSigner, hashPersonalMessage, verifySolana };

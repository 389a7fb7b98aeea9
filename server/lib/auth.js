'use strict';
// Wallet auth adapters in the shape of parse-server's custom auth adapter interface
// (validateAuthData / validateAppId), as a Moralis v1 server had them, plus a one-time ticket:
//   moralisEth: authData {id: 0x address, signature: 65-byte hex personal_sign, data: signed text, ticket}
//   moralisSol: authData {id: base58 ed25519 public key, signature: base58|hex|base64, data: signed text, ticket}
// A valid signature is not enough: a captured authData would log in again forever. The adapter also consumes the
// ticket (tickets.js), which this deployment issued for exactly this chain, address and text and which expires:
// once consumed (one winner in the database, through parse-server's Parse SDK with the master key), the same
// authData is refused on every instance. The signature is checked first, so a forged request cannot burn a ticket.
// Only the address is stored as the user's authData ({save: {id}}; parse-server 6 and later honour it, 5 stores the
// authData as sent): signatures, texts and tickets never reach the users table. The adapters need the package's
// cloud code only for the tickets' issue and upkeep; they use the global Parse parse-server sets up.
// Failures throw Parse.Error 101 (OBJECT_NOT_FOUND), so parse-server answers 404 {"code":101,...}.
const { secp256k1 } = require('@noble/curves/secp256k1');
const { ed25519 } = require('@noble/curves/ed25519');
const { keccak_256 } = require('@noble/hashes/sha3');
const bs58 = require('bs58').default;
const tickets = require('./tickets');
const private_ = require('./private');

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

// ED25519_L is the order of the prime-order subgroup of edwards25519.
const ED25519_L = ed25519.Point.Fn.ORDER;

// strictPoint decodes b (32 bytes) as an edwards25519 point and returns it only when b is the point's canonical
// encoding (RFC 8032 decoding: y < p, no x = 0 with the sign bit) and the point is not of small order (its order
// does not divide 8); else null. Keys and R values that fail this let a signature be forged without a private key.
function strictPoint(b) {
  let p;
  try {
    p = ed25519.Point.fromBytes(b, false);
  } catch (e) {
    return null;
  }
  if (Buffer.compare(Buffer.from(p.toBytes()), Buffer.from(b)) !== 0 || p.isSmallOrder()) {
    return null;
  }
  return p;
}

// solanaPublicKey decodes a base58 Solana address into the 32 bytes of an ed25519 public key that can sign, or
// null (not base58, not 32 bytes, not a canonical point, or a point of small order such as
// 11111111111111111111111111111111).
function solanaPublicKey(address) {
  let raw;
  try {
    raw = Buffer.from(bs58.decode(address));
  } catch (e) {
    return null;
  }
  if (raw.length !== 32 || strictPoint(raw) === null) {
    return null;
  }
  return raw;
}

// canonicalSignature reports whether sig (64 bytes, R || S) has the form a real signer produces: R a canonical
// point not of small order, S below L.
function canonicalSignature(sig) {
  if (sig.length !== 64 || strictPoint(sig.subarray(0, 32)) === null) {
    return false;
  }
  const s = BigInt('0x' + Buffer.from(sig.subarray(32)).reverse().toString('hex'));
  return s < ED25519_L;
}

// verifySolana reports whether signature (base58, hex or base64) is address's ed25519 signature over the UTF-8
// bytes of message. It refuses small-order and non-canonical keys, R values and S >= L before verifying (RFC 8032
// strict rules, @noble/curves with zip215 off).
function verifySolana(message, signature, address) {
  const key = solanaPublicKey(address);
  if (key === null) {
    return false;
  }
  const msg = Buffer.from(message, 'utf8');
  return signatureCandidates(signature).some(sig => {
    if (!canonicalSignature(sig)) {
      return false;
    }
    try {
      return ed25519.verify(sig, msg, key, { zip215: false });
    } catch (e) {
      return false;
    }
  });
}

// CHAIN maps a provider to the chain name tickets are issued for.
const CHAIN = { moralisEth: 'evm', moralisSol: 'solana' };

// defaultConsume consumes a ticket with the server's Parse (parse-server's global, with the master key).
function defaultConsume(request, t) {
  const P = global.Parse;
  if (!P || typeof P.Query !== 'function' || typeof P.applicationId !== 'string') {
    throw parseError(OBJECT_NOT_FOUND, 'wallet auth: parse-server has not set up its Parse SDK; is this adapter mounted in parse-server?');
  }
  standaloneSetup(P);
  // Tickets issued and never used are deleted now and then, off the sign-in's path.
  tickets
    .purgeExpired(P, { database: databaseOf(P) })
    .catch(err => console.error('moralis-go-server: purging expired tickets:', err && err.message));
  if (tickets.isEndpointTicket(t.ticket)) {
    // The Go endpoint's ticket: checked with the master key, claimed once (tickets.js).
    return tickets.consumeEndpointTicket(tickets.claimStore(P), P.masterKey, t);
  }
  return tickets.consumeTicket(P, t);
}

// standaloneSetup, the first time the adapters run in a parse-server whose cloud code did not register the package's
// (the app mounted the adapters only), says so once and makes the package's classes master-key only (the cloud
// code's set-up), so that tickets written there are never readable by clients. A failure is logged; the sign-in goes
// on either way.
let standaloneChecked = false;
function standaloneSetup(P) {
  if (standaloneChecked) {
    return;
  }
  standaloneChecked = true;
  if (require('../cloud/register').isRegistered()) {
    return;
  }
  console.error(
    "moralis-go-server: the wallet adapters run without the package's cloud code (add require('moralis-go-server/cloud') to the app's cloud file): " +
      'no moralisAuthRequestMessage, moralisGoSignIn or moralisGoServerInfo here; making the ticket classes master-key only'
  );
  require('./setup')
    .ensureClasses(P)
    .catch(err => console.error(`moralis-go-server: making the ticket classes master-key only failed: ${err && err.message}`));
}

// databaseOf returns parse-server's database controller of the app when its private module is usable, else null.
function databaseOf(P) {
  const config = private_.config(P.applicationId);
  return config && config.database && typeof config.database.destroy === 'function' ? config.database : null;
}

// storedIs reports whether the user the request logs in or links (request.original, as parse-server passes it to
// an adapter) already holds exactly {id} as its authData for provider.
function storedIs(request, provider, id) {
  const user = request && request.original;
  const all = user && typeof user.get === 'function' ? user.get('authData') : undefined;
  const stored = all && typeof all === 'object' ? all[provider] : undefined;
  return !!stored && typeof stored === 'object' && stored.id === id && Object.keys(stored).length === 1;
}

// makeAdapters builds moralisEth and moralisSol. consume(request, {ticket, chain, address, message}) must resolve
// true exactly once per issued ticket (tests pass a fake; the server uses its database).
function makeAdapters({ consume = defaultConsume } = {}) {
  async function checkTicket(provider, authData, address, request, contract = false) {
    if (typeof authData.ticket !== 'string' || authData.ticket === '') {
      throw parseError(OBJECT_NOT_FOUND, `${provider}: authData requires a ticket issued by this server`);
    }
    const t = { ticket: authData.ticket, chain: CHAIN[provider], address, message: authData.data };
    if (contract) {
      t.contract = true;
    }
    const ok = await consume(request, t);
    if (!ok) {
      throw parseError(OBJECT_NOT_FOUND, `${provider}: ticket unknown, used or expired`);
    }
    // A returning wallet's login: its user holds exactly {id} for this provider already, so nothing is written
    // (parse-server's login would otherwise update the user's authData on every sign-in).
    if (storedIs(request, provider, authData.id)) {
      return { doNotSave: true };
    }
    // Store the address only: no signature, text or ticket in the users table.
    return { save: { id: authData.id } };
  }
  const moralisEth = {
    async validateAuthData(authData, options, request) {
      if (!hasFields(authData)) {
        throw parseError(OBJECT_NOT_FOUND, 'moralisEth: authData requires id, signature, data');
      }
      const signer = recoverPersonalSigner(authData.data, authData.signature);
      if (signer === null || signer !== authData.id.toLowerCase()) {
        // A smart-contract account (ERC-1271 / ERC-6492) signs with a signature ecrecover cannot check. The Go
        // endpoint verified it on chain and issued a ticket marked contract (master key only) for exactly this
        // address and text: that ticket, and no other, lets it in.
        if (/^0x[0-9a-fA-F]{40}$/.test(authData.id)) {
          try {
            return await checkTicket('moralisEth', authData, authData.id.toLowerCase(), request, true);
          } catch (err) {
            // fall through to the signature error
          }
        }
        throw parseError(OBJECT_NOT_FOUND, 'moralisEth: signature does not match address');
      }
      return checkTicket('moralisEth', authData, signer, request);
    },
    validateAppId() {
      return Promise.resolve();
    },
  };
  const moralisSol = {
    async validateAuthData(authData, options, request) {
      if (!hasFields(authData)) {
        throw parseError(OBJECT_NOT_FOUND, 'moralisSol: authData requires id, signature, data');
      }
      if (solanaPublicKey(authData.id) === null) {
        throw parseError(OBJECT_NOT_FOUND, 'moralisSol: public key cannot sign (not a canonical point of large order)');
      }
      if (!verifySolana(authData.data, authData.signature, authData.id)) {
        throw parseError(OBJECT_NOT_FOUND, 'moralisSol: signature does not match address');
      }
      return checkTicket('moralisSol', authData, authData.id, request);
    },
    validateAppId() {
      return Promise.resolve();
    },
  };
  return { moralisEth, moralisSol };
}

const { moralisEth, moralisSol } = makeAdapters();

module.exports = {
  moralisEth,
  moralisSol,
  makeAdapters,
  recoverPersonalSigner,
  hashPersonalMessage,
  verifySolana,
  solanaPublicKey,
};

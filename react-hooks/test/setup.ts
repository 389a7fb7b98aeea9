// Under jsdom, Node's crypto hands ethers Buffers, which fail ethers' Uint8Array checks in this realm.
// Register wrappers that copy every result into a plain Uint8Array.
import { computeHmac, pbkdf2, randomBytes, ripemd160, sha256, sha512 } from 'ethers';

const copy = (b: any): any => (typeof b === 'string' ? b : new Uint8Array(b));
const rb = randomBytes._;
randomBytes.register((length) => copy(rb(length)));
const hm = computeHmac._;
computeHmac.register((algo, key, data) => copy(hm(algo, copy(key), copy(data))));
const pb = pbkdf2._;
pbkdf2.register((password, salt, iterations, keylen, algo) => copy(pb(copy(password), copy(salt), iterations, keylen, algo)));
const s256 = sha256._;
sha256.register((data) => copy(s256(copy(data))));
const s512 = sha512._;
sha512.register((data) => copy(s512(copy(data))));
const r160 = ripemd160._;
ripemd160.register((data) => copy(r160(copy(data))));

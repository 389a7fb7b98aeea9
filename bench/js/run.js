// One workload of the original JavaScript client (moralis-v1 1.13.0) against the local stack, for `make bench`.
// Usage: node run.js <workload> <n> <class> [batchSize]; configuration from MORALIS_* variables. batchSize (saveall,
// iterate) is passed as the client's own batchSize option; absent or 0, the client's default. Prints one JSON line:
// {"ms": <workload time>, "n": <items>, "check": <a number the driver verifies>}.
// Calls to hosts other than the local server (version check, usage tracking) are refused before they leave.
'use strict';
const Moralis = require('moralis-v1/node');
const RESTController = require('moralis-v1/lib/node/RESTController');

const serverUrl = process.env.MORALIS_SERVER_URL;
const origin = new URL(serverUrl).origin;
const realAjax = RESTController.ajax;
let requests = 0; // HTTP requests sent to the local server (the updates workloads report them)
RESTController.ajax = function (method, url, ...rest) {
  if (!String(url).startsWith(origin)) {
    return Promise.reject(new Error('bench: outside host refused: ' + new URL(url).host));
  }
  requests++;
  return realAjax.call(this, method, url, ...rest);
};

async function main() {
  const [workload, nArg, cls, batchArg] = process.argv.slice(2);
  const n = Number(nArg);
  const batch = Number(batchArg || 0);
  const batchOpts = batch > 0 ? { batchSize: batch } : undefined;
  await Moralis.start({ serverUrl, appId: process.env.MORALIS_APP_ID, javascriptKey: process.env.MORALIS_JS_KEY });
  const t0 = process.hrtime.bigint();
  let check = 0;
  switch (workload) {
    case 'creates': {
      for (let i = 0; i < n; i++) {
        const o = new Moralis.Object(cls);
        await o.save({ n: i });
        check++;
      }
      break;
    }
    case 'saveall': {
      const objs = [];
      for (let i = 0; i < n; i++) {
        const o = new Moralis.Object(cls);
        o.set('n', i);
        objs.push(o);
      }
      const saved = await Moralis.Object.saveAll(objs, batchOpts);
      check = saved.filter((o) => o.id).length;
      break;
    }
    case 'updates-set':
    case 'updates-inc': {
      // SaveAll of n existing objects at the client's defaults: they are created first, outside the clock.
      const objs = [];
      for (let i = 0; i < n; i++) {
        const o = new Moralis.Object(cls);
        o.set('n', i);
        o.set('score', 0);
        objs.push(o);
      }
      await Moralis.Object.saveAll(objs, batchOpts);
      objs.forEach((o, i) => (workload === 'updates-set' ? o.set('v', i + 1) : o.increment('score', 1)));
      requests = 0;
      const t1 = process.hrtime.bigint();
      const saved = await Moralis.Object.saveAll(objs, batchOpts);
      const ms = Number(process.hrtime.bigint() - t1) / 1e6;
      check = saved.filter((o) => !o.dirty()).length;
      console.log(JSON.stringify({ ms, n, check, requests }));
      return;
    }
    case 'iterate': {
      await new Moralis.Query(cls).each(() => { check++; }, batchOpts);
      break;
    }
    case 'signin': {
      // moralis-v1's authenticate() without a browser wallet: the same calls in the same order, with the message
      // and its one-time ticket from this backend's moralisAuthRequestMessage in place of getServerTime (the local
      // backend accepts only ticketed sign-ins). Wallets are made before the clock starts.
      Moralis.User.enableUnsafeCurrentUser();
      const { Wallet, utils } = require('ethers');
      const wallets = [];
      for (let i = 0; i < n; i++) wallets.push(new Wallet(utils.randomBytes(32)));
      const t1 = process.hrtime.bigint();
      for (const w of wallets) {
        const ethAddress = w.address.toLowerCase();
        const { message, ticket } = await Moralis.Cloud.run('moralisAuthRequestMessage', { chain: 'evm', address: ethAddress });
        const signature = await w.signMessage(message);
        const user = await Moralis.User.logInWith('moralisEth', { authData: { id: ethAddress, signature, data: message, ticket } });
        if (!user) throw new Error('Could not get user');
        await user.setACL(new Moralis.ACL(user));
        user.addAllUnique('accounts', [ethAddress]);
        user.set('ethAddress', ethAddress);
        await user.save();
        if (user.getSessionToken()) check++;
      }
      console.log(JSON.stringify({ ms: Number(process.hrtime.bigint() - t1) / 1e6, n, check }));
      return;
    }
    case 'verify-eth': {
      const fx = require(process.env.BENCH_FIXTURE);
      const { utils } = require('ethers');
      for (let i = 0; i < n; i++) {
        const v = fx.eth[i % fx.eth.length];
        if (utils.verifyMessage(v.message, v.signature).toLowerCase() === v.address) check++;
      }
      break;
    }
    case 'verify-sol': {
      const fx = require(process.env.BENCH_FIXTURE);
      const nacl = require('tweetnacl');
      const bs58 = require('bs58');
      const dec = fx.sol.map((v) => ({ m: new TextEncoder().encode(v.message), s: bs58.decode(v.signature), k: bs58.decode(v.address) }));
      for (let i = 0; i < n; i++) {
        const v = dec[i % dec.length];
        if (nacl.sign.detached.verify(v.m, v.s, v.k)) check++;
      }
      break;
    }
    case 'lds': {
      // Pin n objects in the local datastore, then run the local queries (timed separately in "queryMs").
      Moralis.enableLocalDatastore();
      const objs = [];
      for (let i = 0; i < n; i++) {
        objs.push(Moralis.Object.fromJSON({ className: cls, objectId: 'o' + i, n: i, name: 'name' + (i % 1000), tag: i % 7 === 0 ? 'seven' : 'other' }));
      }
      await Moralis.Object.pinAll(objs);
      const t1 = process.hrtime.bigint();
      const queries = Number(process.env.BENCH_LDS_QUERIES || 5);
      for (let q = 0; q < queries; q++) {
        const found = await new Moralis.Query(cls).fromLocalDatastore().equalTo('tag', 'seven').greaterThan('n', q * 10).find();
        check += found.length;
      }
      const t2 = process.hrtime.bigint();
      console.log(JSON.stringify({ ms: Number(t1 - t0) / 1e6, queryMs: Number(t2 - t1) / 1e6 / queries, n, check }));
      return;
    }
    default:
      throw new Error('unknown workload ' + workload);
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  console.log(JSON.stringify({ ms, n, check }));
}

main().then(() => process.exit(0), (err) => { console.error(err && err.stack || err); process.exit(1); });

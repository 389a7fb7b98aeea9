// Browser end-to-end test of the React hooks demo (issue 9): Debian's Chromium, driven by playwright-core, loads
// react-hooks/demo/dist/ from the real Go authserver (examples/authserver), whose /auth endpoint talks to the local
// backend (parse-server with the moralisEth / moralisSol adapters). The wallets in the page are thin shims: every
// signature is made in Node with real keys (an ethers Wallet, an ed25519 key) through exposed bindings.
//
// It also runs the lifecycle the hooks guarantee in a real browser, under React StrictMode: a reload with another
// wallet account ends the stored session, a switch of account or chain during the flow ends the session (or
// aborts the sign-in in progress), the chain guard switches back; and the data hooks through the Go endpoint
// (balances from the local chain via web3apiserver, with the API key only in the authserver), a transfer on the
// local chain with its receipt, and a live list. Screenshots (desktop and phone width) go to test-artifacts/.
//
// Usage: cd react-hooks && npm run build:demo && cd e2e && npm ci && node run.mjs
// E2E_AUTHSERVER_BIN=path runs a prebuilt authserver instead of building ./examples/authserver.
// E2E_AUTHSERVER_ARGS="-rate-every 5s" adds flags to the walk's authserver: that one refills each client's rate limit
// five times slower, as a machine five times faster than this one would spend it (the walk's two tabs share the
// endpoint's default per-client limit; over it, the hooks wait for Retry-After).
// Needs: /usr/bin/chromium (or CHROMIUM=...), go, the local stack up (MORALIS_* in the environment or in
// .devstack/env at the repository root, or MORALIS_ENV_FILE=...), and the local chain (.devstack/chain/env, or
// MORALIS_CHAIN_ENV_FILE=...: MORALIS_RPC_URL, MORALIS_DEV_KEY, MORALIS_WEB3API_URL, MORALIS_API_KEY). Exits non-zero on failure; the last line is
// "e2e: N passed, M failed".
import { spawn, execFile } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ed25519 } from '@noble/curves/ed25519.js';
import bs58 from 'bs58';
import { formatEther, getBytes, JsonRpcProvider, parseEther, Wallet } from 'ethers';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const demoDist = resolve(here, '..', 'demo', 'dist');
const artifacts = join(repo, 'test-artifacts');
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const WAIT_MS = Number(process.env.E2E_WAIT_MS ?? 15_000);

// ---------- small helpers ----------

const ms = (t0) => Math.round(performance.now() - t0);
const lower = (s) => s.toLowerCase();

class Failure extends Error {}
function check(cond, what) {
  if (!cond) throw new Failure(what);
}
function eq(actual, expected, what) {
  if (actual !== expected) throw new Failure(`${what}: got ${JSON.stringify(actual)}, want ${JSON.stringify(expected)}`);
}

function loadEnv() {
  const keys = ['MORALIS_SERVER_URL', 'MORALIS_APP_ID', 'MORALIS_JS_KEY', 'MORALIS_MASTER_KEY', 'MORALIS_RPC_URL',
    'MORALIS_DEV_KEY', 'MORALIS_WEB3API_URL', 'MORALIS_API_KEY'];
  const env = {};
  const files = [
    process.env.MORALIS_ENV_FILE ?? join(repo, '.devstack', 'env'),
    process.env.MORALIS_CHAIN_ENV_FILE ?? join(repo, '.devstack', 'chain', 'env'),
  ];
  for (const file of files) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const m = /^\s*(?:export\s+)?([A-Z0-9_]+)=(.*)$/.exec(line);
      if (m) env[m[1]] = m[2].trim().replace(/^(['"])(.*)\1$/, '$2');
    }
  }
  for (const k of Object.keys(process.env)) if (k.startsWith('MORALIS_')) env[k] = process.env[k];
  const missing = keys.filter((k) => !env[k]);
  if (missing.length) {
    throw new Failure(`missing ${missing.join(', ')}: start the local stack and chain (make up, make chain) or set them`);
  }
  env.MORALIS_SERVER_URL = env.MORALIS_SERVER_URL.replace(/\/+$/, '');
  return env;
}

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

function run(cmd, args, opts) {
  return new Promise((res, rej) =>
    execFile(cmd, args, { maxBuffer: 16 << 20, ...opts }, (err, stdout, stderr) =>
      err ? rej(new Failure(`${cmd} ${args.join(' ')} failed: ${err.message}\n${stdout}${stderr}`)) : res(stdout),
    ),
  );
}

const sleep = (t) => new Promise((r) => setTimeout(r, t));

// ---------- the Go authserver ----------

let server; // { child, pid, output(), exited }: the authserver of the walk
const servers = []; // every authserver started (the walk's, and the short-lived sessions' one)

// Starts examples/authserver on host:port with the demo page; extra flags after the usual ones.
async function startAuthserver(bin, env, port, { host = '127.0.0.1', args = [] } = {}) {
  const out = [];
  const { MORALIS_DEV_KEY: _devKey, ...serverEnv } = env; // the chain's dev key stays in this test process
  const child = spawn(bin, ['-addr', `${host}:${port}`, '-static', demoDist, '-data-functions', 'echo', ...args], {
    cwd: repo,
    env: { ...process.env, ...serverEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
  child.stdout.on('data', (d) => out.push(d.toString()));
  child.stderr.on('data', (d) => out.push(d.toString()));
  const srv = { child, pid: child.pid, output: () => out.join(''), exited, done: false };
  servers.push(srv);
  if (!server) server = srv;
  exited.then(() => (srv.done = true));
  const base = `http://${host}:${port}`;
  const end = Date.now() + 20_000;
  let last = '';
  while (Date.now() < end) {
    if (srv.done) throw new Failure(`authserver exited early: ${JSON.stringify(await exited)}\n${srv.output()}`);
    try {
      const [page, me] = await Promise.all([fetch(`${base}/`), fetch(`${base}/auth/me`)]);
      last = `GET / -> ${page.status}, GET /auth/me -> ${me.status} ${await me.text()}`;
      if (page.ok && me.status === 401) return base;
    } catch (e) {
      last = e.message;
    }
    await sleep(100);
  }
  throw new Failure(`authserver not ready on ${base} after 20 s (last: ${last})\n${srv.output()}`);
}

async function stopAuthserver(srv = server) {
  if (!srv || srv.done) return;
  try {
    process.kill(srv.pid, 'SIGTERM');
  } catch {}
  const t = await Promise.race([srv.exited.then(() => 'exited'), sleep(5000).then(() => 'timeout')]);
  if (t === 'timeout' && !srv.done) {
    try {
      process.kill(srv.pid, 'SIGKILL');
    } catch {}
    await srv.exited;
  }
}
const killServers = () => {
  for (const srv of servers) {
    if (srv.done) continue;
    try {
      process.kill(srv.pid, 'SIGKILL');
    } catch {}
  }
};
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    killServers();
    process.exit(130);
  });
}
process.on('exit', killServers);

// ---------- wallets (keys stay in Node) ----------

const ethKeys = [Wallet.createRandom(), Wallet.createRandom()];
const solSecret = ed25519.utils.randomSecretKey();
const solPublic = ed25519.getPublicKey(solSecret);
const solAddress = bs58.encode(solPublic);
const signed = { eth: [], sol: [] };
const txs = []; // transactions the page's wallet sent
let rpc; // JsonRpcProvider of the local chain
let localChainId;

// Runs in the page before any page script. The wallet shims hold no key: they call the Node bindings.
function walletShims({ solAddress, chainId, chains, localChainId, demoChains }) {
  window.__DEMO_CHAINS__ = demoChains;
  const emitter = () => {
    const map = new Map();
    return {
      on(event, fn) {
        if (!map.has(event)) map.set(event, new Set());
        map.get(event).add(fn);
        return this;
      },
      off(event, fn) {
        map.get(event)?.delete(fn);
        return this;
      },
      emit(event, ...args) {
        for (const fn of [...(map.get(event) ?? [])]) fn(...args);
      },
      count: (event) => map.get(event)?.size ?? 0,
    };
  };

  // EIP-1193 (MetaMask-like). The account comes from Node; the site is not authorised until eth_requestAccounts.
  // It survives reloads like a real wallet: the authorisation and the chain are kept in sessionStorage.
  const ev = emitter();
  const saved = JSON.parse(sessionStorage.getItem('__e2eWallet') ?? '{}');
  let authorised = saved.authorised ?? false;
  chainId = saved.chainId ?? chainId;
  const save = () => sessionStorage.setItem('__e2eWallet', JSON.stringify({ authorised, chainId }));
  const counts = {};
  const rpcError = (code, message) => Object.assign(new Error(message), { code });
  const ethereum = {
    isMetaMask: true,
    async request({ method, params } = {}) {
      const p = Array.isArray(params) ? params : [];
      counts[method] = (counts[method] ?? 0) + 1;
      switch (method) {
        case 'eth_accounts':
          return authorised ? [await window.__e2eEthAccount()] : [];
        case 'eth_requestAccounts':
          authorised = true;
          save();
          return [await window.__e2eEthAccount()];
        case 'eth_chainId':
          return '0x' + chainId.toString(16);
        case 'wallet_switchEthereumChain': {
          const id = Number.parseInt(String(p[0]?.chainId), 16);
          if (!chains.includes(id)) throw rpcError(4902, 'Unrecognized chain ID');
          if (id !== chainId) {
            chainId = id;
            save();
            ev.emit('chainChanged', '0x' + id.toString(16));
          }
          return null;
        }
        case 'eth_sendTransaction': {
          if (!authorised) throw rpcError(4100, 'The requested account has not been authorized');
          if (chainId !== localChainId) throw rpcError(-32603, `e2e wallet: transactions only on chain ${localChainId}`);
          return window.__e2eSendTx(p[0]);
        }
        case 'eth_call':
        case 'eth_blockNumber':
        case 'eth_getBalance':
        case 'eth_getTransactionReceipt':
        case 'eth_getTransactionByHash':
          if (chainId !== localChainId) throw rpcError(4901, 'e2e wallet: no RPC for this chain');
          return window.__e2eRpc(method, p);
        case 'net_version':
          return String(chainId);
        case 'personal_sign': {
          if (!authorised) throw rpcError(4100, 'The requested account has not been authorized');
          return window.__e2eEthSign(String(p[0]), String(p[1]));
        }
        default:
          throw rpcError(4200, `unsupported method ${method}`);
      }
    },
    on: (e, fn) => (ev.on(e, fn), ethereum),
    removeListener: (e, fn) => (ev.off(e, fn), ethereum),
    off: (e, fn) => (ev.off(e, fn), ethereum),
  };

  // Phantom-like Solana provider.
  const sv = emitter();
  const publicKey = {
    toBase58: () => solAddress,
    toString: () => solAddress,
    toJSON: () => solAddress,
    equals: (o) => String(o) === solAddress,
  };
  let solConnected = false;
  let solTrusted = false;
  const solana = {
    isPhantom: true,
    publicKey: null,
    get isConnected() {
      return solConnected;
    },
    async connect(opts) {
      if (opts?.onlyIfTrusted && !solTrusted) throw rpcError(4001, 'User rejected the request.');
      solConnected = solTrusted = true;
      solana.publicKey = publicKey;
      sv.emit('connect', publicKey);
      return { publicKey };
    },
    async disconnect() {
      solConnected = false;
      solana.publicKey = null;
      sv.emit('disconnect');
    },
    async signMessage(message, display) {
      if (!solConnected) throw rpcError(4100, 'not connected');
      const bytes = Array.from(message instanceof Uint8Array ? message : new Uint8Array(message));
      const sig = await window.__e2eSolSign(bytes, display ?? 'utf8');
      return { signature: Uint8Array.from(sig), publicKey };
    },
    on: (e, fn) => (sv.on(e, fn), solana),
    off: (e, fn) => (sv.off(e, fn), solana),
    removeListener: (e, fn) => (sv.off(e, fn), solana),
  };

  Object.defineProperty(window, 'ethereum', { value: ethereum, configurable: true });
  Object.defineProperty(window, 'solana', { value: solana, configurable: true });
  // Test hooks for Node: fire wallet events as a real wallet would.
  window.__e2eEmitEth = (event, ...args) => ev.emit(event, ...args);
  window.__e2eEthListeners = (event) => ev.count(event);
  window.__e2eEthCounts = () => ({ ...counts });
  // Test hook: the wallet moves to another chain by itself (as when the user picks it in the wallet).
  window.__e2eSetChain = (id) => {
    chainId = id;
    save();
    ev.emit('chainChanged', '0x' + id.toString(16));
  };
  // Records any moment the page shows a signed-in user whose address is not the wallet's account.
  window.__e2eMismatches = [];
  const watch = () => {
    const t = (id) => document.querySelector(`[data-testid="${id}"]`)?.textContent ?? '';
    const acct = t('account');
    const user = t('user-eth');
    if (acct && user && acct.toLowerCase() !== user.toLowerCase()) window.__e2eMismatches.push(`${user} shown with ${acct}`);
  };
  new MutationObserver(watch).observe(document, { subtree: true, childList: true, characterData: true });
}

// ---------- the test ----------

const results = [];
const exchanges = []; // every /auth request the page made: method, path, body, status, answer
const pageErrors = [];

async function main() {
  const t0 = performance.now();
  const env = loadEnv();
  check(existsSync(join(demoDist, 'index.html')) && existsSync(join(demoDist, 'main.js')),
    `demo not built: ${demoDist} has no index.html/main.js (cd react-hooks && npm run build:demo)`);
  check(existsSync(chromiumPath), `no Chromium at ${chromiumPath} (apt-get install chromium, or set CHROMIUM)`);

  // The local chain: the two test accounts get 1 ETH each from the chain's dev key (which stays in this process).
  rpc = new JsonRpcProvider(env.MORALIS_RPC_URL);
  localChainId = Number((await rpc.getNetwork()).chainId);
  {
    const t = performance.now();
    const dev = new Wallet(env.MORALIS_DEV_KEY, rpc);
    // Other runs may use the dev key at the same time: a nonce taken meanwhile is retried with a fresh one.
    const fund = async (to) => {
      for (let attempt = 1; ; attempt++) {
        try {
          const nonce = await rpc.getTransactionCount(dev.address, 'pending');
          const tx = await dev.sendTransaction({ to, value: parseEther('1'), nonce });
          // The receipt is asked for here, not awaited through tx.wait(): the chain mines only while transactions
          // wait, and ethers' wait listens for blocks after the one it saw first, which may already hold this one
          // (a fresh clone's walk waited 13 minutes for a block that never came once the other suites were done).
          const t0 = performance.now();
          for (;;) {
            const receipt = await rpc.getTransactionReceipt(tx.hash);
            if (receipt) {
              check(receipt.status === 1, `funding ${to}: transaction ${tx.hash} reverted`);
              return receipt;
            }
            if (performance.now() - t0 > 30_000) {
              // Replaced by another user of the dev key with the same nonce, or dropped: sent again.
              throw Object.assign(new Error(`funding ${to}: no receipt for ${tx.hash} within 30 s`), { code: 'NO_RECEIPT' });
            }
            await sleep(100);
          }
        } catch (e) {
          const race = ['NONCE_EXPIRED', 'REPLACEMENT_UNDERPRICED', 'NO_RECEIPT'].includes(e.code) || /nonce/i.test(e.message);
          if (!race || attempt >= 6) throw e;
          await sleep(150 * attempt + Math.floor(Math.random() * 200));
        }
      }
    };
    for (const k of ethKeys) await fund(k.address);
    console.log(`setup: funded 2 accounts on chain ${localChainId} in ${ms(t)} ms`);
  }

  const tmp = await mkdtemp(join(tmpdir(), 'moralis-e2e-'));
  let context;
  try {
    // 1. build and start the authserver
    let t = performance.now();
    let bin = process.env.E2E_AUTHSERVER_BIN;
    if (!bin) {
      bin = join(tmp, 'authserver');
      await run('go', ['build', '-o', bin, './examples/authserver'], { cwd: repo });
    }
    const buildMs = ms(t);
    t = performance.now();
    const port = await freePort();
    const base = await startAuthserver(bin, env, port, { args: (process.env.E2E_AUTHSERVER_ARGS ?? '').split(' ').filter(Boolean) });
    console.log(`setup: go build ${buildMs} ms, authserver pid ${server.pid} ready on ${base} in ${ms(t)} ms`);

    // 2. Chromium with a fresh profile
    t = performance.now();
    context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
      executablePath: chromiumPath,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1100, height: 800 },
    });
    const browserVersion = context.browser()?.version() ?? 'unknown';
    console.log(`setup: Chromium ${browserVersion} launched in ${ms(t)} ms`);

    // 3. wallet bindings and shims
    let ethIndex = 0;
    // While set, personal_sign waits: `signGate.entered` resolves when a signature is asked, `release()` answers it.
    let signGate = null;
    const holdSign = () => {
      let release;
      let enter;
      const gate = new Promise((r) => (release = r));
      const entered = new Promise((r) => (enter = r));
      signGate = { gate, enter, entered, release: () => ((signGate = null), release()) };
      return signGate;
    };
    await context.exposeFunction('__e2eEthAccount', () => ethKeys[ethIndex].address);
    await context.exposeFunction('__e2eSendTx', async (tx) => {
      const w = ethKeys.find((k) => lower(k.address) === lower(tx.from ?? ''));
      if (!w) throw new Error(`eth_sendTransaction: unknown from ${tx.from}`);
      const sent = await w.connect(rpc).sendTransaction({ to: tx.to, data: tx.data, value: tx.value ? BigInt(tx.value) : 0n });
      txs.push({ hash: sent.hash, from: w.address, to: tx.to, value: tx.value });
      return sent.hash;
    });
    await context.exposeFunction('__e2eRpc', (method, params) => rpc.send(method, params));
    await context.exposeFunction('__e2eEthSign', async (hexMessage, address) => {
      if (signGate) {
        signGate.enter();
        await signGate.gate;
      }
      const w = ethKeys.find((k) => lower(k.address) === lower(address));
      if (!w) throw new Error(`personal_sign: unknown address ${address}`);
      const message = getBytes(hexMessage);
      const signature = await w.signMessage(message);
      signed.eth.push({ address: w.address, message: new TextDecoder().decode(message) });
      return signature;
    });
    await context.exposeFunction('__e2eSolSign', (bytes, display) => {
      const message = Uint8Array.from(bytes);
      signed.sol.push({ display, message: new TextDecoder().decode(message) });
      return Array.from(ed25519.sign(message, solSecret));
    });
    await context.addInitScript(walletShims, {
      solAddress,
      chainId: localChainId,
      chains: [1, localChainId],
      localChainId,
      demoChains: [{ id: localChainId, name: 'Local chain', rpcUrl: env.MORALIS_RPC_URL }],
    });

    const page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => pageErrors.push(e.message));
    // Console errors, except the browser's own "Failed to load resource" lines (401 from /auth/me is expected).
    page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && pageErrors.push(`console: ${m.text()}`));
    page.on('response', (r) => r.status() === 404 && !r.url().endsWith('/favicon.ico') && pageErrors.push(`404: ${r.url()}`));
    // Every /auth request is logged when sent; its answer is filled in when it arrives.
    const pending = new Map();
    page.on('request', (req) => {
      const u = new URL(req.url());
      if (!u.pathname.startsWith('/auth/')) return;
      const x = { method: req.method(), path: u.pathname + u.search, body: req.postData() ?? '', status: undefined, answer: '',
        cacheControl: req.headers()['cache-control'] };
      exchanges.push(x);
      pending.set(req, x);
    });
    page.on('requestfinished', async (req) => {
      const x = pending.get(req);
      if (!x) return;
      const res = await req.response();
      try {
        x.setCookie = (await res?.allHeaders())?.['set-cookie'] ?? '';
        x.answer = res ? await res.text() : '';
      } catch {}
      x.status = res?.status() ?? 0;
    });
    page.on('requestfailed', (req) => {
      const x = pending.get(req);
      if (x) Object.assign(x, { status: 0, answer: req.failure()?.errorText ?? 'failed' });
    });

    const tid = (id) => page.getByTestId(id);
    const text = (id) => tid(id).textContent();
    const snapshot = async () => {
      const ids = ['status', 'account', 'chain', 'user-eth', 'user-sol', 'error'];
      const vals = await Promise.all(ids.map((i) => text(i).catch(() => null)));
      return Object.fromEntries(ids.map((k, i) => [k, vals[i]]));
    };
    // Waits until every data-testid has the wanted text; on timeout says what the page shows.
    const until = async (what, want, timeout = WAIT_MS) => {
      const end = Date.now() + timeout;
      let snap;
      while (Date.now() < end) {
        snap = await snapshot();
        if (Object.entries(want).every(([k, v]) => snap[k] === v)) return snap;
        if (snap.status === 'error') break;
        await sleep(25);
      }
      throw new Failure(`${what}: page shows ${JSON.stringify(snap)}, want ${JSON.stringify(want)}`);
    };
    // Every /auth request of another page: path, the session cookie it carried, its status and answer.
    const watchRequests = (p) => {
      const log = [];
      p.on('request', (req) => {
        const u = new URL(req.url());
        if (!u.pathname.startsWith('/auth/')) return;
        const x = { path: u.pathname, cookie: undefined, status: undefined, answer: undefined };
        log.push(x);
        req.allHeaders().then((h) => (x.cookie = h.cookie ?? ''), () => (x.cookie = '?'));
        req.response().then(async (r) => {
          x.answer = await r?.text().catch(() => '');
          x.status = r?.status() ?? 0;
        }, () => (x.status = 0));
      });
      return log;
    };
    // until, on another page.
    const untilOn = async (p, what, want, timeout = WAIT_MS) => {
      const end = Date.now() + timeout;
      let snap;
      while (Date.now() < end) {
        snap = {};
        for (const k of Object.keys(want)) snap[k] = await p.getByTestId(k).textContent().catch(() => null);
        if (Object.entries(want).every(([k, v]) => snap[k] === v)) return snap;
        await sleep(25);
      }
      throw new Failure(`${what}: the page shows ${JSON.stringify(snap)}, want ${JSON.stringify(want)}`);
    };
    // GET /auth/me with the browser's session cookie, from this process and another loopback address (127.0.0.3):
    // the test's own checks neither count against the page's per-client rate limit (the endpoint's default, which
    // the two tabs share) nor change the browser's cookies.
    const me = async () => {
      const cookie = (await context.cookies(base)).map((c) => `${c.name}=${c.value}`).join('; ');
      return new Promise((res, rej) => {
        const req = httpRequest(`${base}/auth/me`, { localAddress: '127.0.0.3', headers: cookie ? { cookie } : {} }, (r) => {
          let text = '';
          r.setEncoding('utf8');
          r.on('data', (d) => (text += d));
          r.on('end', () => {
            let body = null;
            try {
              body = JSON.parse(text);
            } catch {}
            res({ status: r.statusCode, body });
          });
        });
        req.on('error', rej);
        req.end();
      });
    };
    const sessionCookie = async () => (await context.cookies(base)).find((c) => /session/i.test(c.name));
    const rest = async (path, headers = {}) => {
      const r = await fetch(`${env.MORALIS_SERVER_URL}${path}`, {
        headers: { 'X-Parse-Application-Id': env.MORALIS_APP_ID, 'X-Parse-Javascript-Key': env.MORALIS_JS_KEY, ...headers },
      });
      return { status: r.status, body: await r.json().catch(() => null) };
    };
    const usersByEth = async (addr) => {
      const where = encodeURIComponent(JSON.stringify({ ethAddress: lower(addr) }));
      const r = await rest(`/classes/_User?where=${where}`, { 'X-Parse-Master-Key': env.MORALIS_MASTER_KEY });
      eq(r.status, 200, `backend GET /classes/_User where ethAddress=${lower(addr)} status`);
      return r.body.results;
    };
    // The last POST /auth/signin as the page saw it, once its answer is in.
    const lastSignIn = async () => {
      const end = Date.now() + WAIT_MS;
      for (;;) {
        const x = [...exchanges].reverse().find((e) => e.path === '/auth/signin');
        if (x && x.status !== undefined && x.answer) return x;
        if (Date.now() > end) throw new Failure(`no answered POST /auth/signin (${JSON.stringify(x)})`);
        await sleep(10);
      }
    };

    const acct1 = lower(ethKeys[0].address);
    const acct2 = lower(ethKeys[1].address);
    const state = {};
    const chainStr = () => String(localChainId);
    const shot = async (name) => {
      await mkdir(artifacts, { recursive: true });
      await page.screenshot({ path: join(artifacts, `e2e-${name}.png`), fullPage: true });
    };
    const count = (path, from = 0) => exchanges.slice(from).filter((x) => x.path.split('?')[0] === path).length;
    const waitFor = async (what, fn, timeout = WAIT_MS) => {
      const end = Date.now() + timeout;
      let last;
      while (Date.now() < end) {
        if ((last = await fn())) return last;
        await sleep(25);
      }
      throw new Failure(`timed out waiting for ${what}`);
    };
    const noMismatch = async () => {
      const bad = await page.evaluate(() => window.__e2eMismatches);
      check(bad.length === 0, `the page showed a user with another wallet's account: ${JSON.stringify(bad.slice(0, 3))}`);
    };
    const signedOutOnServer = async (token, from) => {
      await waitFor('POST /auth/signout answered', () => exchanges.slice(from).some((x) => x.path === '/auth/signout' && x.status === 200));
      eq((await me()).status, 401, 'GET /auth/me after the session ended');
      const s = await rest('/users/me', { 'X-Parse-Session-Token': token });
      eq(s.body?.code, 209, `backend GET /users/me with the ended token (${s.status} ${JSON.stringify(s.body)})`);
    };
    const signInAs = async (acct, what) => {
      await tid('signin').click();
      await until(what, { status: 'signed-in', 'user-eth': acct, account: acct, error: '' });
      const m = await me();
      eq(m.status, 200, `GET /auth/me after ${what}`);
      eq(m.body?.user?.ethAddress, acct, '/auth/me user.ethAddress');
      return { user: m.body.user.objectId, token: (await sessionCookie())?.value };
    };
    // The balance reads rounded (at most 4 decimals, thousands grouped) within half a unit of the last decimal of the
    // exact value, which is the title (hover) and what a copy puts on the clipboard.
    const balanceShows = async (wei) => {
      const el = tid('balance-native');
      const exact = formatEther(wei);
      if ((await el.getAttribute('title').catch(() => null)) !== exact) return false;
      const shown = (await el.textContent()) ?? '';
      check(/^\d{1,3}(,\d{3})*(\.\d{1,4})?$/.test(shown), `balance reads rounded: ${JSON.stringify(shown)}`);
      check(Math.abs(Number(shown.replace(/,/g, '')) - Number(exact)) <= 0.00005 + 1e-12, `balance ${shown} rounds ${exact}`);
      const copied = await el.evaluate((node) => {
        const data = new DataTransfer();
        const sel = window.getSelection();
        sel.selectAllChildren(node);
        node.dispatchEvent(new ClipboardEvent('copy', { clipboardData: data, bubbles: true, cancelable: true }));
        sel.removeAllRanges();
        return data.getData('text/plain');
      });
      eq(copied, exact, 'a copy of the balance takes the exact value');
      return true;
    };
    // The actions the page offers: only those that apply.
    const offered = async () => {
      const ids = ['signin', 'signout', 'link-sol', 'unlink-sol', 'transfer-send'];
      const counts = await Promise.all(ids.map((i) => tid(i).count()));
      return ids.filter((_, i) => counts[i] > 0).join(',');
    };
    const apiKeyLeaked = () => exchanges.some((x) => x.answer.includes(env.MORALIS_API_KEY) || x.path.includes(env.MORALIS_API_KEY));

    const steps = [
      ['open page (StrictMode: one /auth/me)', async () => {
        await page.goto(`${base}/`);
        await until('page load', { status: 'signed-out', account: '', 'user-eth': '' });
        eq(await offered(), 'signin', 'actions offered while signed out');
        eq((await me()).status, 401, 'GET /auth/me before sign-in');
        eq(count('/auth/me'), 1, 'GET /auth/me from the page: one, under StrictMode');
        await shot('01-signed-out');
      }],
      ['connect wallet (one prompt)', async () => {
        await tid('connect').click();
        await until('connect', { account: acct1, chain: chainStr(), status: 'signed-out', error: '' });
        eq((await page.evaluate(() => window.__e2eEthCounts())).eth_requestAccounts, 1, 'eth_requestAccounts prompts');
      }],
      ['sign in with Ethereum (account 1)', async () => {
        const n = signed.eth.length;
        await tid('signin').click();
        await until('sign-in', { status: 'signed-in', 'user-eth': acct1, error: '' });
        eq(signed.eth.length, n + 1, 'personal_sign calls answered by the Node key');
        const msg = signed.eth.at(-1).message;
        check(msg.includes(ethKeys[0].address) || msg.includes(acct1), `signed message names the account: ${JSON.stringify(msg)}`);
        const m = await me();
        eq(m.status, 200, 'GET /auth/me after sign-in');
        eq(m.body?.user?.ethAddress, acct1, '/auth/me user.ethAddress');
        state.user1 = m.body.user.objectId;
        const cookie = await sessionCookie();
        check(cookie, `a session cookie is set (cookies: ${JSON.stringify(await context.cookies(base))})`);
        eq(cookie.httpOnly, true, 'session cookie HttpOnly');
        eq(cookie.secure, true, 'session cookie Secure (loopback counts as a secure origin)');
        eq(cookie.sameSite, 'Lax', 'session cookie SameSite');
        // Cookie only: the answer the page can read carries no session token; the test reads it from the cookie jar.
        const answer = JSON.parse((await lastSignIn()).answer);
        check(!('sessionToken' in answer), `POST /auth/signin answer has no sessionToken: ${JSON.stringify(Object.keys(answer))}`);
        check(!(await page.evaluate(() => document.cookie)).includes(cookie.value), 'the session cookie is hidden from page scripts');
        state.token1 = cookie.value;
        check(state.token1.startsWith('r:'), 'the session cookie holds a backend session token');
      }],
      ['backend has user 1 (REST, master key)', async () => {
        const users = await usersByEth(acct1);
        eq(users.length, 1, `users with ethAddress ${acct1}`);
        eq(users[0].objectId, state.user1, 'backend user objectId = /auth/me objectId');
        check(users[0].authData?.moralisEth?.id === undefined || lower(users[0].authData.moralisEth.id) === acct1,
          `authData.moralisEth.id ${JSON.stringify(users[0].authData?.moralisEth)}`);
        const s = await rest('/users/me', { 'X-Parse-Session-Token': state.token1 });
        eq(s.status, 200, 'backend GET /users/me with the sign-in session token');
        eq(s.body?.objectId, state.user1, 'backend /users/me objectId');
      }],
      ['balances through the Go endpoint (API key stays on the server)', async () => {
        const wei = await rpc.getBalance(ethKeys[0].address);
        await waitFor('native balance', () => balanceShows(wei));
        eq(await offered(), 'signout,link-sol,transfer-send', 'actions offered while signed in');
        const calls = exchanges.filter((x) => x.path.startsWith('/auth/data/chain/'));
        check(calls.some((x) => x.path.startsWith(`/auth/data/chain/balance?chain=${localChainId}`) && x.status === 200),
          `GET /auth/data/chain/balance answered: ${JSON.stringify(calls.map((x) => `${x.path} ${x.status}`))}`);
        check(!apiKeyLeaked(), 'the chain-data API key never reaches the page');
        check(!(await page.content()).includes(env.MORALIS_API_KEY), 'the API key is not in the page');
        await shot('02-signed-in-balances');
      }],
      ['transfer on the local chain, receipt, balance refreshed', async () => {
        const receiver = Wallet.createRandom().address;
        const before = await rpc.getBalance(ethKeys[0].address);
        await tid('transfer-to').fill(receiver);
        await tid('transfer-amount').fill('0.01');
        const sentAt = exchanges.length;
        await tid('transfer-send').click();
        await waitFor('transfer confirmed', async () => (await text('transfer-status')) === 'confirmed');
        const hash = await text('transfer-hash');
        eq(hash, txs.at(-1)?.hash, 'the hash shown is the one the wallet sent');
        eq(lower(txs.at(-1).to), lower(receiver), 'sent to the receiver');
        eq(await rpc.getBalance(receiver), parseEther('0.01'), 'receiver balance on chain');
        const after = await rpc.getBalance(ethKeys[0].address);
        check(after < before - parseEther('0.01') + 1n, 'sender paid the amount and gas');
        // The page does not poll: the receipt makes the balance hook refetch, past the endpoint's 10 s cache.
        await waitFor('balance after the transfer', () => balanceShows(after));
        const fresh = exchanges.slice(sentAt).filter((x) => x.path.startsWith('/auth/data/chain/balance'));
        check(fresh.some((x) => x.cacheControl === 'no-cache' && x.status === 200),
          `the refetch after the receipt asks past the cache: ${JSON.stringify(fresh.map((x) => [x.cacheControl, x.status]))}`);
        await shot('03-transfer-confirmed');
      }],
      ['live list (server-sent events, as the user)', async () => {
        await waitFor('live stream open', async () => (await text('live-status')) === 'success');
        const create = async (title) => {
          const r = await fetch(`${env.MORALIS_SERVER_URL}/classes/LiveItem`, {
            method: 'POST',
            headers: { 'X-Parse-Application-Id': env.MORALIS_APP_ID, 'X-Parse-Javascript-Key': env.MORALIS_JS_KEY,
              'X-Parse-Session-Token': state.token1, 'Content-Type': 'application/json' },
            body: JSON.stringify({ title, ACL: { [state.user1]: { read: true, write: true } } }),
          });
          eq(r.status, 201, `create LiveItem ${title}`);
          return (await r.json()).objectId;
        };
        const items = async () => (await page.getByTestId('live-item').allTextContents());
        const a = await create('e2e first item');
        const b = await create('e2e second item');
        await waitFor('both items listed', async () => (await items()).includes('e2e first item') && (await items()).includes('e2e second item'));
        const del = await fetch(`${env.MORALIS_SERVER_URL}/classes/LiveItem/${a}`, {
          method: 'DELETE',
          headers: { 'X-Parse-Application-Id': env.MORALIS_APP_ID, 'X-Parse-Javascript-Key': env.MORALIS_JS_KEY, 'X-Parse-Session-Token': state.token1 },
        });
        eq(del.status, 200, 'delete LiveItem');
        await waitFor('deleted item gone', async () => !(await items()).includes('e2e first item'));
        check((await items()).includes('e2e second item'), 'the other item stays');
        state.liveItem = b;
        await shot('04-live-list');
      }],
      ['reload with another wallet account: the stored session ends', async () => {
        ethIndex = 1; // the wallet now reports account 2 (the site stays authorised)
        const from = exchanges.length;
        await page.reload();
        await until('reload with account 2', { account: acct2, status: 'signed-out', 'user-eth': '', error: '' });
        check(/switched wallet account/.test((await text('session-ended')) ?? ''), 'the page asks to sign in again');
        await signedOutOnServer(state.token1, from);
        eq((await page.getByTestId('live-item').count()), 0, 'live list emptied with the session');
        eq(await page.evaluate(() => window.localStorage.getItem('moralis.currentUser')), null, 'stored user removed');
        await noMismatch();
        await shot('05-reloaded-other-account');
      }],
      ['sign in with Ethereum (account 2)', async () => {
        const s2 = await signInAs(acct2, 'second sign-in');
        check(s2.user !== state.user1, 'account 2 is another user than account 1');
        state.user2 = s2.user;
        state.token2 = s2.token;
        const users = await usersByEth(acct2);
        eq(users.length, 1, `backend users with ethAddress ${acct2}`);
        eq(users[0].objectId, state.user2, 'backend user 2 objectId');
      }],
      ['link Solana address', async () => {
        const n = signed.sol.length;
        await tid('link-sol').click();
        await until('link', { 'user-sol': solAddress, 'user-eth': acct2, status: 'signed-in', error: '' });
        eq(signed.sol.length, n + 1, 'signMessage calls answered by the Node ed25519 key');
        const m = await me();
        check(m.body?.user?.solAccounts?.includes(solAddress), `/auth/me solAccounts ${JSON.stringify(m.body?.user?.solAccounts)}`);
        const users = await usersByEth(acct2);
        check(users[0].solAccounts?.includes(solAddress) || users[0].solAddress === solAddress,
          `backend user 2 has the Solana address (solAccounts ${JSON.stringify(users[0].solAccounts)}, solAddress ${JSON.stringify(users[0].solAddress)})`);
        // The endpoint also keeps an address object (objectId = the address).
        const o = await rest(`/classes/_SolAddress/${solAddress}`, { 'X-Parse-Master-Key': env.MORALIS_MASTER_KEY });
        eq(o.status, 200, `backend GET /classes/_SolAddress/${solAddress} status (${JSON.stringify(o.body)})`);
        // Owned by user 2 alone (ACL). Its "user" pointer is not asserted: the local stack's _SolAddress schema has
        // no such field and drops it (see the e2e report).
        eq(JSON.stringify(o.body?.ACL), JSON.stringify({ [state.user2]: { read: true, write: true } }), '_SolAddress object ACL');
      }],
      ['unlink Solana address', async () => {
        await tid('unlink-sol').click();
        await until('unlink', { 'user-sol': '', 'user-eth': acct2, status: 'signed-in', error: '' });
        const m = await me();
        check(!(m.body?.user?.solAccounts ?? []).includes(solAddress), `/auth/me solAccounts after unlink ${JSON.stringify(m.body?.user?.solAccounts)}`);
        const users = await usersByEth(acct2);
        check(!(users[0].solAccounts ?? []).includes(solAddress) && users[0].solAddress !== solAddress,
          `backend user 2 still has the Solana address (solAccounts ${JSON.stringify(users[0].solAccounts)}, solAddress ${JSON.stringify(users[0].solAddress)})`);
        check(users[0].authData?.moralisSol === undefined, `backend user 2 authData.moralisSol unlinked: ${JSON.stringify(users[0].authData?.moralisSol)}`);
        const o = await rest(`/classes/_SolAddress/${solAddress}`, { 'X-Parse-Master-Key': env.MORALIS_MASTER_KEY });
        eq(o.body?.code, 101, `backend _SolAddress/${solAddress} destroyed (${o.status} ${JSON.stringify(o.body)})`);
      }],
      ['switch chain: the session ends, the chain guard switches back', async () => {
        const from = exchanges.length;
        await page.evaluate(() => window.__e2eSetChain(1));
        await until('chain switched', { chain: '1', status: 'signed-out', 'user-eth': '', account: acct2, error: '' });
        check(/switched network/.test((await text('session-ended')) ?? ''), 'the page asks to sign in again on this network');
        check(await tid('wrong-chain').isVisible(), 'the chain guard shows');
        eq(await offered(), 'signin', 'signed out on the wrong chain: only Sign in is offered (no transfer)');
        await signedOutOnServer(state.token2, from);
        await shot('06-wrong-chain');
        await tid('switch-chain').click();
        await until('switched back', { chain: chainStr(), status: 'signed-out', account: acct2, error: '' });
        eq(await tid('wrong-chain').count(), 0, 'the chain guard is gone');
        await noMismatch();
      }],
      ['an account switch during signing aborts the sign-in', async () => {
        const gate = holdSign();
        const from = exchanges.length;
        await tid('signin').click();
        await gate.entered; // the wallet shows the signature request
        ethIndex = 0;
        await page.evaluate((a) => window.__e2eEmitEth('accountsChanged', [a]), ethKeys[0].address);
        await until('aborted', { status: 'error', error: 'Sign-in aborted: the wallet switched account', account: acct1, 'user-eth': '' });
        gate.release(); // the user signs anyway: too late, nothing is posted
        await sleep(300);
        eq(count('/auth/signin', from), 0, 'POST /auth/signin after the abort');
        eq((await me()).status, 401, 'GET /auth/me after the aborted sign-in');
        await noMismatch();
        await shot('07-signin-aborted');
      }],
      ['sign in again with account 1 (same user as before)', async () => {
        const s1 = await signInAs(acct1, 'sign-in again');
        eq(s1.user, state.user1, 'account 1 is user 1 again');
        state.token1 = s1.token;
        await waitFor('live list of user 1 again', async () => (await page.getByTestId('live-item').allTextContents()).includes('e2e second item'));
      }],
      ['switch account (accountsChanged) ends the sign-in', async () => {
        ethIndex = 1;
        const listeners = await page.evaluate(() => window.__e2eEthListeners('accountsChanged'));
        eq(listeners, 1, 'the page listens to accountsChanged once (StrictMode)');
        const from = exchanges.length;
        await page.evaluate((a) => window.__e2eEmitEth('accountsChanged', [a]), ethKeys[1].address);
        await until('account switch', { account: acct2, status: 'signed-out', 'user-eth': '', error: '' });
        await signedOutOnServer(state.token1, from);
        eq(count('/auth/signout', from), 1, 'POST /auth/signout sent once on the account switch');
        await noMismatch();
      }],
      ['phone-width layout', async () => {
        await tid('signin').click();
        await until('signed in for the screenshot', { status: 'signed-in', 'user-eth': acct2, error: '' });
        await page.setViewportSize({ width: 390, height: 844 });
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        check(overflow <= 0, `no horizontal scrolling at 390 px (overflow ${overflow} px)`);
        await shot('08-phone');
        await page.setViewportSize({ width: 1100, height: 800 });
      }],
      ['sign out', async () => {
        const token2 = (await sessionCookie())?.value;
        check(token2?.startsWith('r:'), `a session cookie before sign-out (cookies: ${JSON.stringify(await context.cookies(base))})`);
        await tid('signout').click();
        await until('sign-out', { status: 'signed-out', 'user-eth': '', 'user-sol': '', account: acct2, error: '' });
        eq((await me()).status, 401, 'GET /auth/me after sign-out');
        check(!(await sessionCookie()), `session cookie cleared (cookies: ${JSON.stringify(await context.cookies(base))})`);
        const s = await rest('/users/me', { 'X-Parse-Session-Token': token2 });
        eq(s.body?.code, 209, `backend GET /users/me with the signed-out token (${s.status} ${JSON.stringify(s.body)})`);
        check(!apiKeyLeaked(), 'the chain-data API key never reached the page');
        await noMismatch();
        check(pageErrors.length === 0, `no uncaught page errors: ${JSON.stringify(pageErrors)}`);
      }],
      ['two tabs: a sign-out in one ends the session in the other, whose next data call has no old session', async () => {
        const old = await signInAs(acct2, 'sign-in before opening a second tab');
        eq(await offered(), 'signout,link-sol,transfer-send', 'tab 1 offers sign-out, not sign-in');
        // Tab 2: same browser profile (cookie jar, localStorage), its own wallet state (sessionStorage): it shows the
        // stored session and uses it for its data calls.
        const page2 = await context.newPage();
        page2.on('pageerror', (e) => pageErrors.push(`tab 2: ${e.message}`));
        const tab2 = []; // every /auth request of tab 2, with the session cookie it carried
        page2.on('request', (req) => {
          const u = new URL(req.url());
          if (!u.pathname.startsWith('/auth/')) return;
          const x = { path: u.pathname, at: performance.now(), cookie: undefined };
          tab2.push(x);
          req.allHeaders().then((h) => (x.cookie = h.cookie ?? ''), () => (x.cookie = '?'));
        });
        const t2 = (id) => page2.getByTestId(id).textContent();
        await page2.goto(`${base}/`);
        await waitFor('tab 2 shows the session', async () => (await t2('status')) === 'signed-in' && (await t2('user-eth')) === acct2);
        await waitFor('tab 2 made a data call with the session', async () =>
          tab2.some((x) => (x.path.startsWith('/auth/data/') || x.path === '/auth/live') && x.cookie?.includes(old.token)));
        eq(await page2.getByTestId('signin').count(), 0, 'tab 2 offers no sign-in while signed in');
        const from2 = tab2.length;
        const t = performance.now();
        await tid('signout').click();
        await waitFor('tab 2 shows signed out', async () => (await t2('status')) === 'signed-out' && (await t2('user-eth')) === '');
        const tookMs = Math.round(performance.now() - t);
        await until('tab 1 signed out', { status: 'signed-out', 'user-eth': '', error: '' });
        eq(await page2.getByTestId('live-item').count(), 0, 'tab 2 dropped the live list');
        eq(await page2.getByTestId('signin').count(), 1, 'tab 2 offers sign-in');
        // Tab 2 learnt it from tab 1 (BroadcastChannel), not from an answer of its own: it asked nothing.
        await sleep(300);
        const after = tab2.slice(from2);
        eq(after.filter((x) => x.path === '/auth/me').length, 0, 'GET /auth/me from tab 2 after the sign-out');
        // Its next data calls: none while signed out, then, after signing in there, only with the new session.
        eq(after.filter((x) => x.path.startsWith('/auth/data/')).length, 0, 'data calls from tab 2 while signed out');
        const from3 = tab2.length;
        const from1 = exchanges.length;
        await page2.getByTestId('signin').click();
        await waitFor('tab 2 signed in again', async () => (await t2('status')) === 'signed-in' && (await t2('user-eth')) === acct2);
        const fresh = (await sessionCookie())?.value;
        check(fresh && fresh !== old.token, 'a new session cookie');
        await waitFor('tab 2 data call with the new session', async () =>
          tab2.slice(from3).some((x) => x.path.startsWith('/auth/data/') && x.cookie?.includes(fresh)));
        const stale = tab2.slice(from2).filter((x) => x.cookie?.includes(old.token));
        eq(stale.length, 0, `tab 2 requests with the signed-out session (${JSON.stringify(stale.map((x) => x.path))})`);
        console.log(`     tab 2 showed signed out ${tookMs} ms after the click in tab 1`);
        await page2.screenshot({ path: join(artifacts, 'e2e-09-second-tab.png'), fullPage: true });
        // Tab 2's sign-in is shown in tab 1 too (same wallet account), without a request of tab 1's own.
        await until('tab 1 shows the sign-in of tab 2', { status: 'signed-in', 'user-eth': acct2, error: '' });
        eq(exchanges.slice(from1).filter((x) => ['/auth/me', '/auth/signin', '/auth/message'].includes(x.path.split('?')[0])).length, 0,
          'GET /auth/me, /auth/message or POST /auth/signin from tab 1 for the sign-in of tab 2');
        // And the other way: tab 2 signs out, tab 1 shows signed out.
        await page2.getByTestId('signout').click();
        await waitFor('tab 2 signed out', async () => (await t2('status')) === 'signed-out');
        await until('tab 1 signed out by tab 2', { status: 'signed-out', 'user-eth': '', error: '' });
        eq((await me()).status, 401, 'GET /auth/me after the sign-out in tab 2');
        await page2.close();
        check(pageErrors.length === 0, `no uncaught page errors: ${JSON.stringify(pageErrors)}`);
      }],
      ['two tabs: a sign-in in one is shown in the other without a reload; a sign-out there ends it here; a switch of account in one ends it in both', async () => {
        const page2 = await context.newPage();
        page2.on('pageerror', (e) => pageErrors.push(`tab 2: ${e.message}`));
        const tab2 = watchRequests(page2);
        const t2 = (id) => page2.getByTestId(id).textContent();
        const until2 = (what, want) => untilOn(page2, what, want);
        await page2.goto(`${base}/`);
        await until2('tab 2 opened signed out', { status: 'signed-out', 'user-eth': '' });
        // A sign-in in tab 1: tab 2 shows it without a reload and without asking the endpoint who is signed in.
        const from2 = tab2.length;
        const from1 = exchanges.length;
        await tid('signin').click();
        await until('tab 1 signed in', { status: 'signed-in', 'user-eth': acct2, error: '' });
        await until2('tab 2 shows the sign-in of tab 1', { status: 'signed-in', 'user-eth': acct2, error: '' });
        eq(tab2.slice(from2).filter((x) => ['/auth/me', '/auth/signin', '/auth/message'].includes(x.path)).length, 0,
          'GET /auth/me, /auth/message or POST /auth/signin from tab 2 for the sign-in of tab 1');
        const fresh = (await sessionCookie())?.value;
        await waitFor('tab 2 data call with the session of tab 1', async () =>
          tab2.slice(from2).some((x) => x.path.startsWith('/auth/data/') && x.cookie?.includes(fresh)));
        await page2.screenshot({ path: join(artifacts, 'e2e-10-sign-in-shown-in-tab-2.png'), fullPage: true });
        // A sign-out in tab 2 ends it in tab 1.
        await page2.getByTestId('signout').click();
        await until2('tab 2 signed out', { status: 'signed-out', 'user-eth': '' });
        await until('tab 1 signed out by tab 2', { status: 'signed-out', 'user-eth': '', error: '' });
        eq(exchanges.slice(from1).filter((x) => x.path === '/auth/signout').length, 0, 'POST /auth/signout from tab 1');
        eq((await me()).status, 401, 'GET /auth/me after the sign-out in tab 2');
        // Tab 1 signs in again (shown in tab 2), then its wallet switches account: the session ends in both.
        await tid('signin').click();
        await until('tab 1 signed in again', { status: 'signed-in', 'user-eth': acct2, error: '' });
        await until2('tab 2 shows it', { status: 'signed-in', 'user-eth': acct2, error: '' });
        const token = (await sessionCookie())?.value;
        const fromSwitch = exchanges.length;
        ethIndex = 0;
        await page.evaluate((a) => window.__e2eEmitEth('accountsChanged', [a]), ethKeys[0].address);
        await until('tab 1 after the switch', { account: acct1, status: 'signed-out', 'user-eth': '', error: '' });
        await until2('tab 2 after the switch in tab 1', { status: 'signed-out', 'user-eth': '' });
        check(/switched wallet account/.test((await page2.getByTestId('session-ended').textContent().catch(() => '')) ?? ''),
          'tab 2 says the session ended for another wallet account');
        await signedOutOnServer(token, fromSwitch);
        // The next sign-in, with the new account, is shown in tab 2 as that account's user.
        await tid('signin').click();
        await until('tab 1 signed in with account 1', { status: 'signed-in', 'user-eth': acct1, account: acct1, error: '' });
        await until2('tab 2 shows account 1', { status: 'signed-in', 'user-eth': acct1, error: '' });
        await page2.getByTestId('signout').click();
        await until('tab 1 signed out at the end', { status: 'signed-out', 'user-eth': '', error: '' });
        await noMismatch();
        await page2.close();
        check(pageErrors.length === 0, `no uncaught page errors: ${JSON.stringify(pageErrors)}`);
      }],
      ['the session ends on an idle page when it ends at the endpoint (6 s idle lifetime), with no action of the page', async () => {
        // Another authserver, with short sessions, on another loopback address (its own cookies).
        const port2 = await freePort();
        const base2 = await startAuthserver(bin, env, port2, { host: '127.0.0.2', args: ['-session-idle-ttl', '6s', '-session-max-age', '30s'] });
        const page3 = await context.newPage();
        page3.on('pageerror', (e) => pageErrors.push(`short sessions: ${e.message}`));
        const log3 = watchRequests(page3);
        const until3 = (what, want, timeout) => untilOn(page3, what, want, timeout);
        await page3.goto(`${base2}/`);
        await until3('opened', { status: 'signed-out' });
        await page3.getByTestId('signin').click();
        await until3('signed in', { status: 'signed-in', 'user-eth': acct1, error: '' });
        const signin = log3.find((x) => x.path === '/auth/signin');
        await waitFor('the sign-in answer', async () => signin.answer !== undefined);
        const session = JSON.parse(signin.answer).session;
        check(session?.expiresAt && session?.maxExpiresAt && session?.now, `the sign-in answer says when the session ends: ${signin.answer}`);
        // Both measured from the sign-in (the endpoint's "now" is when it answered, a little later).
        const idle = Date.parse(session.expiresAt) - Date.parse(session.now);
        check(idle > 0 && idle <= 6000, `the answer: ends at most 6 s from now unless used (${idle} ms)`);
        eq(Date.parse(session.maxExpiresAt) - Date.parse(session.expiresAt), 24000, 'the answer: the cap is 30 s after the sign-in, 24 s after the idle end');
        const afterSignIn = log3.length;
        // Nothing is clicked: the page shows signed out when the session has ended.
        await until3('signed out at the end of the session', { status: 'signed-out', 'user-eth': '', error: '' }, WAIT_MS + 6000);
        check(/Your session ended/.test((await page3.getByTestId('session-ended').textContent().catch(() => '')) ?? ''), 'the page says the session ended');
        const asked = log3.slice(afterSignIn).filter((x) => x.path === '/auth/me');
        eq(asked.length, 1, 'GET /auth/me asked once, at the end (to learn whether a request had moved it)');
        await waitFor('its answer', async () => asked[0].status !== undefined);
        eq(asked[0].status, 401, 'GET /auth/me at the end of the session');
        await page3.screenshot({ path: join(artifacts, 'e2e-11-session-ended.png'), fullPage: true });
        await page3.close();
        await stopAuthserver(servers.at(-1));
        check(pageErrors.length === 0, `no uncaught page errors: ${JSON.stringify(pageErrors)}`);
      }],
    ];

    let failed = false;
    for (const [name, fn] of steps) {
      if (failed) {
        results.push({ name, ok: false, skipped: true });
        continue;
      }
      const from = exchanges.length;
      const ts = performance.now();
      try {
        await fn();
        results.push({ name, ok: true, ms: ms(ts) });
        const calls = exchanges.slice(from).map((x) => `${x.method} ${x.path.split("?")[0]} ${x.status ?? "(pending)"}`);
        console.log(`ok   ${name} (${ms(ts)} ms)${calls.length ? ' — ' + calls.join(', ') : ''}`);
      } catch (e) {
        failed = true;
        results.push({ name, ok: false, ms: ms(ts), error: e });
        console.log(`FAIL ${name} (${ms(ts)} ms): ${e instanceof Failure ? e.message : e.stack}`);
        console.log('  /auth exchanges in this step (request -> response):');
        for (const x of exchanges.slice(from)) {
          console.log(`    ${x.method} ${x.path} ${x.body}\n      -> ${x.status} ${x.answer.trim()}${x.setCookie ? `\n      set-cookie: ${x.setCookie}` : ''}`);
        }
        if (pageErrors.length) console.log(`  page errors: ${JSON.stringify(pageErrors)}`);
        await mkdir(artifacts, { recursive: true });
        await page.screenshot({ path: join(artifacts, 'e2e-failure.png'), fullPage: true }).catch(() => {});
      }
    }
    console.log(`total: ${ms(t0)} ms (${exchanges.length} /auth requests, ${signed.eth.length} personal_sign, ${signed.sol.length} signMessage)`);
  } finally {
    await context?.close().catch(() => {});
    for (const srv of servers) await stopAuthserver(srv);
    if (server && results.some((r) => !r.ok && !r.skipped)) {
      console.log(`authserver output:\n${server.output().trim().split('\n').slice(-40).join('\n')}`);
    }
    await rm(tmp, { recursive: true, force: true }).catch(() => {});
  }
}

try {
  await main();
} catch (e) {
  results.push({ name: 'setup', ok: false, error: e });
  console.log(`FAIL setup: ${e instanceof Failure ? e.message : e.stack}`);
}
const passed = results.filter((r) => r.ok).length;
const failedN = results.filter((r) => !r.ok && !r.skipped).length;
const skipped = results.filter((r) => r.skipped).length;
console.log(`e2e: ${passed} passed, ${failedN} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failedN === 0 && passed > 0 ? 0 : 1);

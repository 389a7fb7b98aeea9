// SSR test of the demo dApp: the page is rendered in Node (react-dom/server, demo/server.tsx) from the request's
// cookies (cookieStorage + cookieToInitialState) and hydrated in Debian's Chromium (playwright-core). Checks, for
// three requests, that the server HTML holds the cookie's state, that hydration reports no mismatch, and what
// happens after it: signed out stays signed out; a session of account A stays with wallet A; with wallet B it
// ends (POST /auth/signout) and the page asks to sign in again. No backend needed: a tiny stand-in answers /auth.
//
// Usage: cd react-hooks && npm ci && cd e2e && npm ci && node ssr.mjs      Needs /usr/bin/chromium (or CHROMIUM=).
// Screenshots go to test-artifacts/ at the repository root. Last line: "ssr: N passed, M failed".
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(here, '..');
const repo = resolve(pkg, '..');
const artifacts = join(repo, 'test-artifacts');
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const { build } = createRequire(join(pkg, 'package.json'))('esbuild');

class Failure extends Error {}
const check = (cond, what) => {
  if (!cond) throw new Failure(what);
};

const ACCOUNT_A = '0x' + 'a1'.repeat(20);
const ACCOUNT_B = '0x' + 'b2'.repeat(20);
const USER_A = { objectId: 'ssrUserA', username: 'alice', ethAddress: ACCOUNT_A, accounts: [ACCOUNT_A], solAccounts: [] };

async function bundle(out) {
  const common = { bundle: true, jsx: 'automatic', logLevel: 'warning', define: { 'process.env.NODE_ENV': '"production"' } };
  // The server module lives under react-hooks/ so Node resolves react and react-dom from its node_modules.
  await build({ ...common, entryPoints: [join(pkg, 'demo', 'server.tsx')], outfile: join(pkg, 'demo', 'dist-ssr', 'server.mjs'), platform: 'node', format: 'esm', packages: 'external' });
  await build({ ...common, entryPoints: [join(pkg, 'demo', 'main.tsx')], outfile: join(out, 'main.js'), platform: 'browser', format: 'esm', target: 'es2020', minify: true, external: ['@walletconnect/ethereum-provider'] });
  return import(pathToFileURL(join(pkg, 'demo', 'dist-ssr', 'server.mjs')).href + `?t=${Date.now()}`);
}

function cookies(header) {
  const out = {};
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i).trim()] = decodeURIComponent(part.slice(i + 1).trim());
  }
  return out;
}

async function main() {
  check(existsSync(chromiumPath), `no Chromium at ${chromiumPath}`);
  const tmp = await mkdtemp(join(tmpdir(), 'moralis-ssr-'));
  const { renderPage } = await bundle(tmp);
  const template = readFileSync(join(pkg, 'demo', 'index.html'), 'utf8');
  const clientJs = readFileSync(join(tmp, 'main.js'));
  const seen = []; // requests to /auth
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const jar = cookies(req.headers.cookie);
    const json = (status, body, headers = {}) => {
      res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers });
      res.end(JSON.stringify(body));
    };
    if (url.pathname.startsWith('/auth/')) {
      seen.push(`${req.method} ${url.pathname}`);
      const signedIn = jar.moralis_session === 'r:ssr-session';
      if (url.pathname === '/auth/me') return signedIn ? json(200, { user: USER_A }) : json(401, { code: 209, error: 'Invalid session token' });
      if (url.pathname === '/auth/signout') return json(200, {}, { 'Set-Cookie': 'moralis_session=; Path=/; HttpOnly; Max-Age=0' });
      if (url.pathname === '/auth/data/chain/balance') return json(200, { balance: '2000000000000000000' });
      if (url.pathname === '/auth/data/chain/tokens') return json(200, []);
      return json(401, { code: 209, error: 'Invalid session token' });
    }
    if (url.pathname === '/main.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript' });
      return res.end(clientJs);
    }
    if (url.pathname === '/' || url.pathname === '/index.html') {
      const { html, initialState } = renderPage(req.headers.cookie);
      const state = JSON.stringify(initialState).replace(/</g, '\\u003c');
      const page = template
        .replace('<!--ssr-->', html)
        .replace('<script type="module" src="./main.js"></script>', `<script>window.__MORALIS_SSR__=${state}</script><script type="module" src="/main.js"></script>`);
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      return res.end(page);
    }
    res.writeHead(404).end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
  const results = [];
  try {
    const scenarios = [
      { name: 'signed out', cookie: {}, wallet: null, want: { status: 'signed-out', 'user-eth': '' }, after: { status: 'signed-out', 'user-eth': '' } },
      {
        name: 'session of A, wallet A: kept after hydration',
        cookie: session(),
        wallet: ACCOUNT_A,
        want: { 'user-eth': ACCOUNT_A },
        after: { status: 'signed-in', 'user-eth': ACCOUNT_A, account: ACCOUNT_A },
      },
      {
        name: 'session of A, wallet now B: ends after hydration',
        cookie: session(),
        wallet: ACCOUNT_B,
        want: { 'user-eth': ACCOUNT_A },
        after: { status: 'signed-out', 'user-eth': '', account: ACCOUNT_B },
        ended: true,
      },
    ];
    for (const s of scenarios) {
      const t0 = performance.now();
      try {
        await runScenario(browser, base, s, seen);
        results.push({ name: s.name, ok: true });
        console.log(`ok   ${s.name} (${Math.round(performance.now() - t0)} ms)`);
      } catch (e) {
        results.push({ name: s.name, ok: false });
        console.log(`FAIL ${s.name}: ${e instanceof Failure ? e.message : e.stack}`);
      }
    }
  } finally {
    await browser.close();
    server.close();
    await rm(tmp, { recursive: true, force: true });
    await rm(join(pkg, 'demo', 'dist-ssr'), { recursive: true, force: true });
  }
  return results;
}

function session() {
  return {
    moralis_session: 'r:ssr-session',
    'moralis.currentUser': JSON.stringify(USER_A),
    'moralis.session': JSON.stringify({ objectId: USER_A.objectId, address: ACCOUNT_A, chain: 'evm', chainId: 1337 }),
    'moralis.recentConnectorId': JSON.stringify('injected'),
  };
}

// An injected wallet that already trusts the site, on chain 1337, reporting `account`.
function walletShim({ account }) {
  if (!account) return;
  const listeners = new Map();
  window.ethereum = {
    async request({ method }) {
      if (method === 'eth_accounts' || method === 'eth_requestAccounts') return [account];
      if (method === 'eth_chainId') return '0x539';
      throw Object.assign(new Error(`unsupported ${method}`), { code: 4200 });
    },
    on: (e, f) => (listeners.has(e) || listeners.set(e, new Set()), listeners.get(e).add(f)),
    removeListener: (e, f) => listeners.get(e)?.delete(f),
  };
}

async function runScenario(browser, base, s, seen) {
  // 1. The server's HTML, as a browser without JavaScript would get it.
  const cookieHeader = Object.entries(s.cookie).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
  const raw = await (await fetch(`${base}/`, { headers: cookieHeader ? { cookie: cookieHeader } : {} })).text();
  for (const [id, want] of Object.entries(s.want)) {
    const m = new RegExp(`data-testid="${id}"[^>]*>([^<]*)<`).exec(raw);
    check(m && m[1] === want, `server HTML ${id}: got ${JSON.stringify(m?.[1])}, want ${JSON.stringify(want)}`);
  }
  // 2. The browser hydrates it.
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  await context.addCookies(Object.entries(s.cookie).map(([name, value]) => ({
    name, value: encodeURIComponent(value), url: base, httpOnly: name === 'moralis_session', sameSite: 'Lax',
  })));
  await context.addInitScript(walletShim, { account: s.wallet });
  const page = await context.newPage();
  const consoleErrors = [];
  page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && consoleErrors.push(m.text()));
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  const from = seen.length;
  await page.goto(`${base}/`);
  const text = (id) => page.getByTestId(id).textContent();
  const end = Date.now() + 10_000;
  let snap = {};
  for (;;) {
    snap = Object.fromEntries(await Promise.all(Object.keys(s.after).map(async (k) => [k, await text(k)])));
    if (Object.entries(s.after).every(([k, v]) => snap[k] === v)) break;
    if (Date.now() > end) throw new Failure(`after hydration: page shows ${JSON.stringify(snap)}, want ${JSON.stringify(s.after)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  const hydrationErrors = await page.evaluate(() => window.__HYDRATION_ERRORS__);
  check(Array.isArray(hydrationErrors), 'the page hydrated (window.__HYDRATION_ERRORS__ set by demo/main.tsx)');
  check(hydrationErrors.length === 0, `hydration errors: ${JSON.stringify(hydrationErrors)}`);
  check(!consoleErrors.some((t) => /hydrat|did not match|server rendered/i.test(t)), `hydration warnings: ${JSON.stringify(consoleErrors)}`);
  check(consoleErrors.length === 0, `console errors: ${JSON.stringify(consoleErrors)}`);
  if (s.ended) {
    await page.getByTestId('session-ended').waitFor({ timeout: 5000 });
    const reqs = seen.slice(from);
    check(reqs.includes('POST /auth/signout'), `POST /auth/signout sent after the mismatch (requests: ${JSON.stringify(reqs)})`);
    const jar = await context.cookies(base);
    check(!jar.some((c) => c.name === 'moralis.currentUser'), `the user cookie is removed: ${JSON.stringify(jar.map((c) => c.name))}`);
  }
  await mkdir(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, `ssr-${s.name.split(':')[0].replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.png`), fullPage: true });
  await context.close();
}

let results = [];
try {
  results = await main();
} catch (e) {
  results.push({ name: 'setup', ok: false });
  console.log(`FAIL setup: ${e instanceof Failure ? e.message : e.stack}`);
}
const passed = results.filter((r) => r.ok).length;
console.log(`ssr: ${passed} passed, ${results.length - passed} failed`);
await writeFile(join(tmpdir(), 'moralis-ssr-last.json'), JSON.stringify(results)).catch(() => {});
process.exit(passed === results.length && passed > 0 ? 0 : 1);

// Browser smoke harness: installs fake wallets (real ethers / ed25519 keys) and an in-page fake of the Go endpoint
// (window.fetch), lets demo/main.tsx run, clicks through the page and writes the outcome into #smoke-result.
import { createFakeEndpoint } from '../../test/helpers/endpoint.js';
import { createFakeEip1193 } from '../../test/helpers/eip1193.js';
import { createFakePhantom } from '../../test/helpers/phantom.js';

const endpoint = createFakeEndpoint('/auth');
const ethereum = createFakeEip1193({ trusted: false });
const solana = createFakePhantom({ trusted: false });
const w = window as any;
w.fetch = endpoint.fetch;
w.ethereum = ethereum;
w.solana = solana;

const text = (id: string) => document.querySelector(`[data-testid="${id}"]`)?.textContent ?? null;
const click = (id: string) => (document.querySelector(`[data-testid="${id}"]`) as HTMLElement | null)?.click();

async function until(what: string, check: () => boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timeout waiting for ${what} (status=${text('status')}, error=${text('error')})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function run() {
  const steps: string[] = [];
  const eth = ethereum.wallet.address.toLowerCase();
  await until('page', () => text('status') === 'signed-out');
  steps.push('loaded');
  click('connect');
  await until('connect', () => text('account') === eth);
  steps.push('connected');
  click('signin');
  await until('signin', () => text('status') === 'signed-in' && text('user-eth') === eth);
  steps.push('signed-in');
  click('link-sol');
  await until('link', () => text('user-sol') === solana.address);
  steps.push('linked');
  click('unlink-sol');
  await until('unlink', () => text('user-sol') === '');
  steps.push('unlinked');
  click('signout');
  await until('signout', () => text('status') === 'signed-out' && text('user-eth') === '');
  steps.push('signed-out');
  return { ok: true, steps, calls: endpoint.paths(), verified: endpoint.verified.map((v) => v.chain), error: text('error') };
}

function report(result: unknown) {
  const pre = document.createElement('pre');
  pre.id = 'smoke-result';
  pre.textContent = JSON.stringify(result);
  document.body.appendChild(pre);
}

run().then(report, (err: Error) => report({ ok: false, error: err.message }));

// Smoke test of the demo page in headless Chromium (needs a `chromium` binary, e.g. Debian's package).
// Bundles the demo plus a harness with fake wallets and an in-page fake endpoint, serves them on 127.0.0.1,
// and checks the outcome the harness writes into the page. Usage: npm run smoke:demo
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist-smoke');
await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
const common = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2020',
  jsx: 'automatic',
  external: ['@walletconnect/ethereum-provider'],
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
};
await build({ ...common, entryPoints: [join(here, '..', 'main.tsx')], outfile: join(out, 'main.js') });
await build({ ...common, entryPoints: [join(here, 'harness.ts')], outfile: join(out, 'harness.js') });
await copyFile(join(here, 'index.html'), join(out, 'index.html'));

const types = { '.html': 'text/html', '.js': 'text/javascript' };
const server = createServer(async (req, res) => {
  const path = normalize(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '') || 'index.html';
  try {
    const body = await readFile(join(out, path));
    res.writeHead(200, { 'Content-Type': types[path.slice(path.lastIndexOf('.'))] ?? 'application/octet-stream' });
    res.end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/index.html`;
const chromium = process.env.CHROMIUM ?? 'chromium';
const started = performance.now();
const dom = await new Promise((resolve, reject) =>
  execFile(
    chromium,
    ['--headless', '--no-sandbox', '--disable-gpu', '--virtual-time-budget=30000', '--dump-dom', url],
    { timeout: 120_000, maxBuffer: 16 << 20 },
    (err, stdout) => (err ? reject(err) : resolve(stdout)),
  ),
).finally(() => server.close());
const match = /<pre id="smoke-result">([\s\S]*?)<\/pre>/.exec(dom);
if (!match) {
  console.error('no smoke result in the page');
  process.exit(1);
}
const result = JSON.parse(match[1].replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>'));
console.log(JSON.stringify(result, null, 2));
console.log(`chromium run: ${Math.round(performance.now() - started)} ms`);
process.exit(result.ok ? 0 : 1);

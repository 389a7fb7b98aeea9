// Builds the demo page into demo/dist/ (index.html + main.js) with esbuild.
import { build } from 'esbuild';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'dist');
await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
const started = performance.now();
const result = await build({
  entryPoints: [join(here, 'main.tsx')],
  outfile: join(out, 'main.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2020',
  jsx: 'automatic',
  minify: true,
  sourcemap: true,
  metafile: true,
  // Optional peer, never used by the demo: leave the lazy import unresolved.
  external: ['@walletconnect/ethereum-provider'],
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
});
await copyFile(join(here, 'index.html'), join(out, 'index.html'));
const bytes = result.metafile.outputs[Object.keys(result.metafile.outputs).find((k) => k.endsWith('main.js'))].bytes;
console.log(`demo built in ${Math.round(performance.now() - started)} ms: demo/dist/index.html, demo/dist/main.js (${Math.round(bytes / 1024)} KiB)`);

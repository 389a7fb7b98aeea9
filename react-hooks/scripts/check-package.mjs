// Checks the package as npm would publish it (run after `npm run build`):
// - `exports` has types, import and default conditions, and each points to a packed file;
// - every source map in dist/ resolves: each `sources` entry names a file that is in the package;
// - a bundler that only knows the `default` condition resolves the package.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const problems = [];
const [{ files }] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
const packed = new Set(files.map((f) => normalize(f.path)));

const dot = pkg.exports?.['.'] ?? {};
for (const cond of ['types', 'import', 'default']) {
  if (!dot[cond]) problems.push(`exports["."] has no "${cond}" condition`);
  else if (!packed.has(normalize(dot[cond]))) problems.push(`exports["."].${cond} -> ${dot[cond]} is not in the package`);
}

let maps = 0;
let sources = 0;
for (const f of packed) {
  if (!f.endsWith('.map')) continue;
  maps++;
  const map = JSON.parse(readFileSync(join(root, f), 'utf8'));
  for (const s of map.sources ?? []) {
    sources++;
    const target = normalize(relative(root, join(root, dirname(f), map.sourceRoot ?? '', s)));
    if (!packed.has(target)) problems.push(`${f}: source ${s} -> ${target} is not in the package`);
  }
}
if (maps === 0) problems.push('no source maps in the package');

// A resolver that knows only the "default" condition (no "import"): esbuild with conditions [] and no main fields.
// The package is linked into a scratch node_modules, as an app would have it.
const scratch = mkdtempSync(join(tmpdir(), 'moralis-pkg-'));
mkdirSync(join(scratch, 'node_modules', '@moralis-go'), { recursive: true });
symlinkSync(root, join(scratch, 'node_modules', '@moralis-go', 'react-hooks'), 'dir');
try {
  await build({
    stdin: { contents: "export { createConfig } from '@moralis-go/react-hooks';", resolveDir: scratch },
    bundle: true,
    write: false,
    platform: 'neutral',
    mainFields: [],
    conditions: [],
    logLevel: 'silent',
    external: ['react', 'react/*', 'ethers', '@tanstack/react-query', '@walletconnect/ethereum-provider'],
  });
} catch (err) {
  problems.push(`a "default"-only resolver cannot load the package: ${err.errors?.[0]?.text ?? err.message}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

console.log(`package: ${packed.size} files, ${maps} source maps with ${sources} sources, exports: ${Object.keys(dot).join(', ')}`);
if (problems.length) {
  for (const p of problems) console.error(`  problem: ${p}`);
  process.exit(1);
}
console.log('package: ok');

// Mutation check of the lifecycle guards: each entry breaks one guard in src/ on purpose, runs the tests that
// should notice, and expects them to FAIL. The source is restored after each run (also on Ctrl-C).
// Usage: node scripts/mutations.mjs [id ...]     (npm run mutations)
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { mutations } = await import('./mutation-list.mjs');

const only = process.argv.slice(2);
const list = only.length ? mutations.filter((m) => only.includes(m.id)) : mutations;
let restore = null;
process.on('SIGINT', () => {
  restore?.();
  process.exit(130);
});

const results = [];
for (const m of list) {
  const file = join(root, m.file);
  const original = readFileSync(file, 'utf8');
  const count = original.split(m.from).length - 1;
  if (count !== 1) {
    results.push({ ...m, outcome: `BROKEN ENTRY (pattern found ${count} times)` });
    continue;
  }
  restore = () => writeFileSync(file, original);
  writeFileSync(file, original.replace(m.from, m.to));
  let outcome;
  let failing = '';
  try {
    execFileSync('npx', ['vitest', 'run', ...m.tests], {
      cwd: root,
      stdio: 'pipe',
      timeout: 300_000,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    outcome = 'SURVIVED';
  } catch (err) {
    const out = (String(err.stdout ?? '') + String(err.stderr ?? '')).replace(/\x1b\[[0-9;]*m/g, '');
    const names = [...out.matchAll(/FAIL\s+\S+\s+>\s+(.+)/g)].map((x) => x[1].trim());
    failing = [...new Set(names)].slice(0, 2).join(' | ');
    outcome = names.length ? 'killed' : 'ERROR (no failing test reported)';
  } finally {
    restore();
    restore = null;
  }
  results.push({ ...m, outcome, failing });
  console.log(`${outcome.padEnd(8)} ${m.id}: ${m.desc}${failing ? `\n         by: ${failing}` : ''}`);
}
const survived = results.filter((r) => r.outcome !== 'killed');
console.log(`\nmutations: ${results.length - survived.length}/${results.length} killed`);
process.exit(survived.length ? 1 : 0);

// Bundle sizes of two apps built on the published build (dist/): a sign-in app and a full app using every hook.
// "package" = this package's code only (peers external: react, ethers, @tanstack/react-query, WalletConnect);
// "with peers" = ethers and TanStack Query bundled too (react still external). Minified, then gzip -9.
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const apps = {
  'sign-in app': `
    import { createConfig, injected, MoralisProvider, useWallet, useSignIn, useSignOut, useUser } from './dist/index.js';
    export const config = createConfig({ connectors: [injected()] });
    export function App() { const w = useWallet(); const s = useSignIn(); const o = useSignOut(); const u = useUser(); return [w, s, o, u]; }
    export { MoralisProvider };`,
  'full app': `
    import * as m from './dist/index.js';
    export const config = m.createConfig({ ssr: true, storage: m.cookieStorage(), connectors: [m.injected(), m.phantom(), m.walletConnect({ projectId: 'p' })] });
    export function App() {
      return [m.useWallet(), m.useSignIn(), m.useSignOut(), m.useUser(), m.useSolanaAccounts(), m.useTransfer(), m.useLiveQuery({ className: 'X' }),
        m.useSwitchChain(), m.useChainGuard(), m.useReadContract({}), m.useWriteContract(), m.useWaitForTransactionReceipt({}),
        m.useMoralisQuery({ className: 'X' }), m.useCloudFunction({ name: 'f' }), m.useNativeBalance(), m.useTokenBalances(), m.useNFTs(), m.useTransactions()];
    }
    export const init = m.cookieToInitialState;
    export { MoralisProvider } from './dist/index.js';`,
};
const peers = ['react', 'react/*', 'react-dom', 'react-dom/*', '@walletconnect/ethereum-provider'];
const rows = [];
for (const [name, contents] of Object.entries(apps)) {
  for (const [mode, external] of [
    ['package', [...peers, 'ethers', '@tanstack/react-query', '@tanstack/query-core']],
    ['with peers', peers],
  ]) {
    const out = await build({
      stdin: { contents, resolveDir: root, loader: 'js' },
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2020',
      write: false,
      external,
      treeShaking: true,
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'error',
    });
    const code = out.outputFiles[0].contents;
    rows.push({ app: name, mode, min: code.length, gzip: gzipSync(code, { level: 9 }).length });
  }
}
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log('app          | bundled         | minified   | gzip');
for (const r of rows) console.log(`${r.app.padEnd(12)} | ${r.mode.padEnd(15)} | ${kb(r.min).padStart(10)} | ${kb(r.gzip).padStart(9)}`);
if (process.argv.includes('--json')) console.log(JSON.stringify(rows));

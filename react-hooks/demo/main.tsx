// Demo page for the browser end-to-end test: wallet connect, Ethereum sign-in, Solana link/unlink, sign-out.
// Talks to the Go endpoint at /auth on the same origin. Stable data-testids: connect, signin, signout, link-sol,
// unlink-sol, user-eth, user-sol, status, error (plus account and chain).
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import {
  createConfig,
  injected,
  MoralisProvider,
  phantom,
  useSignIn,
  useSignOut,
  useSolanaAccounts,
  useUser,
  useWallet,
} from '../src/index.js';

const config = createConfig({ endpoint: '/auth', connectors: [injected(), phantom()] });

function App() {
  const wallet = useWallet();
  const signIn = useSignIn();
  const signOut = useSignOut();
  const { user, status: sessionStatus } = useUser();
  const sol = useSolanaAccounts();
  const actions = [wallet, signIn, signOut, sol];
  const pending = actions.some((a) => a.status === 'pending') || sessionStatus === 'pending';
  const error = actions.map((a) => a.error).find((e) => e) ?? null;
  const status = pending ? 'pending' : error ? 'error' : user ? 'signed-in' : 'signed-out';
  const solAccounts = user?.solAccounts ?? [];

  return (
    <main>
      <h1>moralis-go demo</h1>
      <p>
        Status: <span data-testid="status">{status}</span>
      </p>
      <div>
        {wallet.isConnected ? (
          <button data-testid="connect" onClick={() => void wallet.disconnect()}>
            Disconnect
          </button>
        ) : (
          <button data-testid="connect" onClick={() => wallet.connect()}>
            Connect
          </button>
        )}
        <button data-testid="signin" onClick={() => signIn.signIn({ connector: config.connectors[0] })}>
          Sign in (Ethereum)
        </button>
        <button data-testid="signout" onClick={() => signOut.signOut()} disabled={!user}>
          Sign out
        </button>
        <button data-testid="link-sol" onClick={() => sol.link()} disabled={!user}>
          Link Solana
        </button>
        <button
          data-testid="unlink-sol"
          onClick={() => solAccounts[0] && sol.unlink(solAccounts[0])}
          disabled={solAccounts.length === 0}
        >
          Unlink Solana
        </button>
      </div>
      <dl>
        <dt>Wallet account</dt>
        <dd data-testid="account">{wallet.account ?? ''}</dd>
        <dt>Chain</dt>
        <dd data-testid="chain">{wallet.chainId ?? ''}</dd>
        <dt>User ethAddress</dt>
        <dd data-testid="user-eth">{user?.ethAddress ?? ''}</dd>
        <dt>User Solana accounts</dt>
        <dd data-testid="user-sol">{solAccounts.join(',')}</dd>
        <dt>Error</dt>
        <dd data-testid="error">{error ? error.message : ''}</dd>
      </dl>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MoralisProvider config={config}>
      <App />
    </MoralisProvider>
  </StrictMode>,
);

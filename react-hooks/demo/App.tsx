// The demo dApp: wallet connect (EIP-6963 discovered wallets too), Ethereum sign-in bound to the wallet, Solana
// link/unlink, balances through the Go endpoint (no API key in the browser), a native transfer with its receipt,
// and a live list. Talks to the Go endpoint at /auth on the same origin.
//
// Only the actions that apply are offered: "Sign in" while signed out, "Sign out" and the Solana link while signed
// in, "Unlink" with a linked address, the transfer form while signed in. Balances read rounded (4 decimals); the
// exact value is the title (hover) and what a copy puts on the clipboard.
//
// Stable data-testids: connect, signin, signout, link-sol, unlink-sol, user-eth, user-sol, status, error,
// account, chain, connectors, session-ended, wrong-chain, switch-chain, balance-native, tokens, transfer-to,
// transfer-amount, transfer-send, transfer-hash, transfer-status, transfer-signed-out, live-status, live-items,
// live-item.
import { formatEther, formatUnits, parseEther } from 'ethers';
import { useState, type ClipboardEvent, type FormEvent, type ReactNode } from 'react';
import {
  createConfig,
  injected,
  phantom,
  useChainGuard,
  useLiveQuery,
  useNativeBalance,
  useSignIn,
  useSignOut,
  useSolanaAccounts,
  useTokenBalances,
  useTransfer,
  useUser,
  useWaitForTransactionReceipt,
  useWallet,
  type ChainConfig,
  type Config,
  type CreateConfigParameters,
  type SessionEndReason,
} from '../src/index.js';
import { formatForReading } from './format.js';

/** Chains of the demo; the first is the one the chain guard asks for. Overridable for tests (window.__DEMO_CHAINS__). */
export function demoChains(): ChainConfig[] {
  const fromPage = (globalThis as { __DEMO_CHAINS__?: ChainConfig[] }).__DEMO_CHAINS__;
  return fromPage ?? [{ id: 1337, name: 'Local chain', rpcUrl: 'http://127.0.0.1:8545' }];
}

/** The demo's config; `extra` adds SSR options. */
export function makeConfig(extra: Partial<CreateConfigParameters> = {}): Config {
  return createConfig({ endpoint: '/auth', connectors: [injected(), phantom()], chains: demoChains(), ...extra });
}

const ENDED: Record<SessionEndReason, string> = {
  accountChanged: 'You switched wallet account, so you were signed out. Sign in again with this account.',
  chainChanged: 'You switched network, so you were signed out. Sign in again on this network.',
  signedOut: '',
  expired: 'Your session ended. Sign in again.',
};

const short = (a: string | null | undefined) => (a ? `${a.slice(0, 6)}…${a.slice(-4)}` : '');

function Card({ title, children, className = '' }: { title: string; children: ReactNode; className?: string }) {
  return (
    <section className={`card ${className}`}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** An amount rounded for reading; the exact value on hover (title) and on copy. */
function Amount({ value, testId }: { value: string; testId?: string }) {
  const onCopy = (e: ClipboardEvent<HTMLSpanElement>) => {
    e.clipboardData.setData('text/plain', value);
    e.preventDefault();
  };
  return (
    <span className="amount" data-testid={testId} data-value={value} title={value} onCopy={onCopy}>
      {formatForReading(value)}
    </span>
  );
}

function Balances({ signedIn }: { signedIn: boolean }) {
  // Not polled: the transfer's receipt (useWaitForTransactionReceipt below) makes the chain-data hooks refetch, past
  // the endpoint's cache.
  const native = useNativeBalance();
  const tokens = useTokenBalances();
  if (!signedIn) return <p className="muted">Sign in to see your balances (fetched by the server, with its key).</p>;
  return (
    <>
      <p className="big">
        {native.data ? <Amount testId="balance-native" value={formatEther(native.data.balance)} /> : <span data-testid="balance-native">{native.isError ? '—' : '…'}</span>}{' '}
        <span className="unit">ETH</span>
      </p>
      {native.error ? <p className="warn">{native.error.message}</p> : null}
      <ul className="tokens" data-testid="tokens">
        {(tokens.data ?? []).map((t) => (
          <li key={t.token_address}>
            <span>{t.symbol ?? short(t.token_address)}</span>
            <Amount value={formatUnits(t.balance, Number(t.decimals ?? 18))} />
          </li>
        ))}
        {tokens.data && tokens.data.length === 0 ? <li className="muted">No tokens</li> : null}
      </ul>
    </>
  );
}

function Transfer({ disabled, chainId }: { disabled: boolean; chainId: number | undefined }) {
  const [to, setTo] = useState('');
  const [amount, setAmount] = useState('0.01');
  const transfer = useTransfer();
  const receipt = useWaitForTransactionReceipt({ hash: transfer.data?.hash, pollingIntervalMs: 500 });
  const mined = receipt.data?.status;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    let wei: bigint;
    try {
      wei = parseEther(amount || '0');
    } catch {
      wei = -1n;
    }
    transfer.transfer({ type: 'native', receiver: to.trim(), amount: wei, ...(chainId ? { chainId } : {}) });
  };
  const status = transfer.status === 'pending' ? 'sending' : mined ? (mined === 'success' ? 'confirmed' : 'reverted') : transfer.data ? 'pending' : transfer.status === 'error' ? 'error' : '';
  return (
    <form onSubmit={submit} className="transfer">
      <label>
        To
        <input data-testid="transfer-to" value={to} onChange={(e) => setTo(e.target.value)} placeholder="0x…" spellCheck={false} />
      </label>
      <label>
        Amount (ETH)
        <input data-testid="transfer-amount" value={amount} onChange={(e) => setAmount(e.target.value)} inputMode="decimal" />
      </label>
      <button data-testid="transfer-send" className="primary" disabled={disabled || transfer.status === 'pending'}>
        Send
      </button>
      <p className="tx">
        <span data-testid="transfer-status" className={`pill ${status}`}>
          {status}
        </span>{' '}
        <code data-testid="transfer-hash">{transfer.data?.hash ?? ''}</code>
      </p>
      {transfer.error ? <p className="warn">{transfer.error.message}</p> : null}
    </form>
  );
}

const LIVE_SHOWN = 24;

function LiveList() {
  const live = useLiveQuery<{ objectId: string; title?: string; createdAt?: string }>({ className: 'LiveItem' });
  // Newest first; a long list is cut (the count says how many there are).
  const sorted = [...live.objects].sort((a, b) => String(b.createdAt ?? '').localeCompare(String(a.createdAt ?? '')));
  return (
    <>
      <p className="muted">
        Objects of class <code>LiveItem</code> you can read, kept up to date over server-sent events.{' '}
        <span data-testid="live-status" className={`pill ${live.status}`}>
          {live.status}
        </span>{' '}
        <span data-testid="live-count">{live.objects.length > 0 ? `${live.objects.length} objects` : ''}</span>
      </p>
      <ul className="live" data-testid="live-items">
        {sorted.slice(0, LIVE_SHOWN).map((o) => (
          <li key={o.objectId} data-testid="live-item">
            {o.title ?? o.objectId}
          </li>
        ))}
      </ul>
    </>
  );
}

export function App() {
  const wallet = useWallet();
  const signIn = useSignIn();
  const signOut = useSignOut();
  const { user, status: sessionStatus, endedReason } = useUser();
  const sol = useSolanaAccounts();
  const guard = useChainGuard();
  const signedIn = !!user;
  const actions = [wallet, signIn, signOut, sol, guard];
  const pending = actions.some((a) => a.status === 'pending') || sessionStatus === 'pending';
  const error = actions.map((a) => a.error).find((e) => e) ?? null;
  const status = pending ? 'pending' : error ? 'error' : user ? 'signed-in' : 'signed-out';
  const solAccounts = user?.solAccounts ?? [];
  const evm = wallet.connectors.filter((c) => c.type === 'evm');

  return (
    <div className="app">
      <header>
        <div className="brand">
          <span className="logo" aria-hidden>
            ◆
          </span>
          moralis-go <span className="muted">demo dApp</span>
        </div>
        <div className="header-right">
          <span data-testid="status" className={`pill ${status}`}>
            {status}
          </span>
          {wallet.isConnected ? (
            <button data-testid="connect" onClick={() => void wallet.disconnect()}>
              {short(wallet.account)} · Disconnect
            </button>
          ) : (
            <button data-testid="connect" className="primary" onClick={() => wallet.connect()}>
              Connect wallet
            </button>
          )}
        </div>
      </header>

      {endedReason && ENDED[endedReason] ? (
        <div className="banner" data-testid="session-ended">
          {ENDED[endedReason]}
        </div>
      ) : null}
      {guard.isWrongChain ? (
        <div className="banner warn" data-testid="wrong-chain">
          Your wallet is on chain {guard.currentChainId}; this app runs on chain {guard.expectedChainId}.{' '}
          <button data-testid="switch-chain" onClick={() => guard.switchChain()}>
            Switch network
          </button>
        </div>
      ) : null}
      <p className="error" data-testid="error" role="alert">
        {error ? error.message : ''}
      </p>

      <main className="grid">
        <Card title="Wallet">
          <dl>
            <dt>Account</dt>
            <dd data-testid="account">{wallet.account ?? ''}</dd>
            <dt>Chain</dt>
            <dd data-testid="chain">{wallet.chainId ?? ''}</dd>
            <dt>Connection</dt>
            <dd>{wallet.connectionStatus}</dd>
          </dl>
          <div className="connectors" data-testid="connectors">
            {evm.map((c) => (
              <button key={c.id} onClick={() => wallet.connect({ connector: c })} title={c.id}>
                {c.icon ? <img src={c.icon} alt="" width={16} height={16} /> : null} {c.name}
              </button>
            ))}
          </div>
        </Card>

        <Card title="Session">
          <dl>
            <dt>User (Ethereum)</dt>
            <dd data-testid="user-eth">{user?.ethAddress ?? ''}</dd>
            <dt>Solana accounts</dt>
            <dd data-testid="user-sol">{solAccounts.join(',')}</dd>
          </dl>
          <div className="row">
            {signedIn ? (
              <>
                <button data-testid="signout" onClick={() => signOut.signOut()} disabled={signOut.status === 'pending'}>
                  Sign out
                </button>
                <button data-testid="link-sol" onClick={() => sol.link()} disabled={sol.status === 'pending'}>
                  Link Solana
                </button>
                {solAccounts.length > 0 ? (
                  <button data-testid="unlink-sol" onClick={() => sol.unlink(solAccounts[0]!)} disabled={sol.status === 'pending'}>
                    Unlink Solana
                  </button>
                ) : null}
              </>
            ) : (
              <button
                data-testid="signin"
                className="primary"
                onClick={() => signIn.signIn({ connector: wallet.connector ?? wallet.connectors[0] })}
                disabled={signIn.status === 'pending'}
              >
                Sign in{wallet.isConnected ? '' : ' with a wallet'}
              </button>
            )}
          </div>
        </Card>

        <Card title="Balances">
          <Balances signedIn={!!user} />
        </Card>

        <Card title="Send ETH">
          {signedIn ? (
            <Transfer disabled={!wallet.isConnected || guard.isWrongChain} chainId={guard.expectedChainId ?? undefined} />
          ) : (
            <p className="muted" data-testid="transfer-signed-out">
              Sign in to send ETH from your wallet.
            </p>
          )}
        </Card>

        <Card title="Live list" className="wide">
          {signedIn ? <LiveList /> : <p className="muted">Sign in to see the objects of class <code>LiveItem</code> you can read, live.</p>}
        </Card>
      </main>
      <footer className="muted">Session in an HttpOnly cookie · chain data through the Go endpoint · no key in the browser</footer>
    </div>
  );
}

// Lifecycle guarantees: a session is bound to the wallet account (and chain) it was signed with; sign-ins abort
// when the wallet changes under them; races (double connect, StrictMode, stale /me, failed switch) are handled.
import { act, render, renderHook, waitFor } from '@testing-library/react';
import { Wallet } from 'ethers';
import { StrictMode, type ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import {
  AbortedError,
  connect,
  createConfig,
  disconnect,
  fetchUser,
  injected,
  memoryStorage,
  MoralisProvider,
  phantom,
  reconnect,
  signIn,
  signOut,
  useLiveQuery,
  useUser,
  useWallet,
  type Config,
  type EventSourceCtor,
  type State,
} from '../src/index.js';
import { createFakeEndpoint } from './helpers/endpoint.js';
import { createFakeEip1193, rpcError, type FakeEip1193Options } from './helpers/eip1193.js';
import { FakeEventSource } from './helpers/eventSource.js';
import { createFakePhantom } from './helpers/phantom.js';

const lower = (a: string) => a.toLowerCase();

function setup(evm: FakeEip1193Options = {}, extra: Partial<Parameters<typeof createConfig>[0]> = {}) {
  const provider = createFakeEip1193({ trusted: true, ...evm });
  const endpoint = createFakeEndpoint();
  const storage = memoryStorage();
  const make = (s = storage) =>
    createConfig({ connectors: [injected({ target: () => provider })], fetch: endpoint.fetch, storage: s, ...extra });
  const config = make();
  return { provider, endpoint, storage, config, make };
}

/** Records every state a store goes through and fails on one showing a user with another wallet's account. */
function watchInvariant(config: Config) {
  const seen: State[] = [];
  const bad: string[] = [];
  const check = () => {
    const s = config.store.getState();
    seen.push(s);
    const u = s.session?.user;
    if (u && s.wallet.account && s.wallet.chainType === 'evm' && lower(u.ethAddress ?? '') !== lower(s.wallet.account)) {
      bad.push(`user ${u.ethAddress} shown with wallet ${s.wallet.account}`);
    }
  };
  check();
  const stop = config.store.subscribe(check);
  return { seen, bad, stop };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('session bound to the wallet account', () => {
  it('reload with another account: the stored session of account A ends when the wallet reports B', async () => {
    const { provider, endpoint, storage, config, make } = setup();
    const a = provider.wallet;
    await signIn(config);
    expect(config.store.getState().session?.address).toBe(lower(a.address));
    // Reload: a fresh config on the same storage, and the wallet now reports account B.
    const b = Wallet.createRandom();
    provider.switchAccount(b, false);
    const reloaded = make(storage);
    const renders: string[] = [];
    function Page() {
      const { account } = useWallet();
      const { user } = useUser({ fetchOnMount: false });
      renders.push(`${account ?? '-'}|${user?.ethAddress ?? '-'}`);
      return null;
    }
    render(
      <StrictMode>
        <MoralisProvider config={reloaded}>
          <Page />
        </MoralisProvider>
      </StrictMode>,
    );
    await waitFor(() => expect(reloaded.store.getState().wallet.account).toBe(lower(b.address)));
    expect(reloaded.store.getState().session).toBeNull();
    expect(reloaded.store.getState().sessionEnded).toBe('accountChanged');
    expect(storage.map.has('moralis.currentUser')).toBe(false);
    await waitFor(() => expect(endpoint.paths()).toContain('POST /signout'));
    expect(endpoint.cookie).toBeNull();
    // Before the wallet answered, user A was shown with no wallet; never with wallet B.
    expect(renders[0]).toBe(`-|${lower(a.address)}`);
    expect(renders.filter((r) => r.startsWith(lower(b.address)) && !r.endsWith('|-'))).toEqual([]);
  });

  it('reload with the same account keeps the session', async () => {
    const { provider, endpoint, storage, config, make } = setup();
    await signIn(config);
    const reloaded = make(storage);
    render(<MoralisProvider config={reloaded} />);
    await waitFor(() => expect(reloaded.store.getState().wallet.account).toBe(lower(provider.wallet.address)));
    expect(reloaded.store.getState().session?.user.ethAddress).toBe(lower(provider.wallet.address));
    expect(endpoint.paths()).not.toContain('POST /signout');
  });

  it('accountsChanged ends the session in the same state change (no state shows A with B)', async () => {
    const { provider, endpoint, config } = setup();
    await signIn(config);
    const w = watchInvariant(config);
    provider.switchAccount(Wallet.createRandom());
    w.stop();
    expect(w.bad).toEqual([]);
    expect(config.store.getState()).toMatchObject({ session: null, sessionEnded: 'accountChanged' });
    await flush();
    expect(endpoint.cookie).toBeNull();
  });

  it('a session restored from /me (no stored binding) ends when the wallet is not one of the user\'s', async () => {
    const { provider, endpoint, config } = setup();
    // Another tab signed in user U (account X); this page has wallet B connected and nothing stored.
    const x = lower(Wallet.createRandom().address);
    endpoint.setCookieFor({ objectId: 'uX', username: 'uX', ethAddress: x, accounts: [x] });
    await connect(config);
    expect(config.store.getState().wallet.account).toBe(lower(provider.wallet.address));
    await fetchUser(config);
    expect(config.store.getState().session).toBeNull();
    expect(config.store.getState().sessionEnded).toBe('accountChanged');
    await flush();
    expect(endpoint.cookie).toBeNull();
  });

  it('a session restored from /me for the connected account adopts it as its binding', async () => {
    const { provider, endpoint, config } = setup({ chainId: 137 });
    const a = lower(provider.wallet.address);
    endpoint.setCookieFor({ objectId: 'uA', username: 'uA', ethAddress: a, accounts: [a] });
    await connect(config);
    await fetchUser(config);
    expect(config.store.getState().session).toMatchObject({ address: a, chain: 'evm', chainId: 137 });
  });

  it('chainChanged ends the session by default; bindSessionToChain: false keeps it', async () => {
    const strict = setup({ chainId: 1 });
    await signIn(strict.config);
    expect(strict.config.store.getState().session?.chainId).toBe(1);
    strict.provider.emit('chainChanged', '0x89');
    expect(strict.config.store.getState()).toMatchObject({ session: null, sessionEnded: 'chainChanged' });
    await flush();
    expect(strict.endpoint.cookie).toBeNull();

    const loose = setup({ chainId: 1 }, { bindSessionToChain: false });
    await signIn(loose.config);
    loose.provider.emit('chainChanged', '0x89');
    expect(loose.config.store.getState().session).not.toBeNull();
    expect(loose.config.store.getState().wallet.chainId).toBe(137);
  });

  it('a reload on another chain ends a chain-bound session', async () => {
    const { provider, storage, config, make } = setup({ chainId: 1 });
    await signIn(config);
    provider.setChain(56);
    const reloaded = make(storage);
    await reconnect(reloaded);
    expect(reloaded.store.getState()).toMatchObject({ session: null, sessionEnded: 'chainChanged' });
  });

  it('connecting another wallet after a disconnect ends the old account\'s session', async () => {
    const { provider, config } = setup();
    await signIn(config);
    await disconnect(config);
    expect(config.store.getState().session).not.toBeNull();
    provider.switchAccount(Wallet.createRandom(), false);
    await connect(config);
    expect(config.store.getState()).toMatchObject({ session: null, sessionEnded: 'accountChanged' });
  });

  it('a Solana session ends when an EVM wallet becomes the active one', async () => {
    const solana = createFakePhantom({ trusted: true });
    const evm = createFakeEip1193({ trusted: true });
    const endpoint = createFakeEndpoint();
    const config = createConfig({
      connectors: [phantom({ target: () => solana }), injected({ target: () => evm })],
      fetch: endpoint.fetch,
      storage: memoryStorage(),
    });
    await signIn(config);
    expect(config.store.getState().session?.chain).toBe('solana');
    await connect(config, { connector: 'injected' });
    expect(config.store.getState()).toMatchObject({ session: null, sessionEnded: 'accountChanged' });
  });
});

describe('a switch during sign-in aborts it', () => {
  it('account switched while the wallet shows the signature prompt: aborted at once, nothing posted', async () => {
    const { provider, endpoint, config } = setup();
    const gate = provider.hold('personal_sign');
    const p = signIn(config);
    await gate.entered;
    provider.switchAccount(Wallet.createRandom());
    const err = await p.catch((e) => e);
    expect(err).toBeInstanceOf(AbortedError);
    expect(err).toMatchObject({ name: 'AbortedError', reason: 'accountChanged', message: 'Sign-in aborted: the wallet switched account' });
    gate.release();
    await flush();
    expect(endpoint.paths()).not.toContain('POST /signin');
    expect(config.store.getState().session).toBeNull();
  });

  it('account switched while POST /signin is in flight: the new session is signed out again', async () => {
    const { provider, endpoint, config } = setup();
    const hold = endpoint.hold('POST /signin');
    const p = signIn(config);
    await hold.entered;
    expect(endpoint.liveSessions()).toBe(1); // the server opened a session for A (its cookie lands with the answer)
    provider.switchAccount(Wallet.createRandom());
    hold.release();
    const err = await p.catch((e) => e);
    expect(err).toMatchObject({ name: 'AbortedError', reason: 'accountChanged' });
    expect(config.store.getState().session).toBeNull();
    expect(endpoint.paths().at(-1)).toBe('POST /signout');
    expect(endpoint.cookie).toBeNull();
    expect(endpoint.liveSessions()).toBe(0);
  });

  it('chain switched during signing aborts a chain-bound sign-in', async () => {
    const { provider, config } = setup({ chainId: 1 });
    const gate = provider.hold('personal_sign');
    const p = signIn(config);
    await gate.entered;
    provider.emit('chainChanged', '0x38');
    gate.release();
    expect(await p.catch((e) => e)).toMatchObject({ name: 'AbortedError', reason: 'chainChanged' });
    expect(config.store.getState().session).toBeNull();
  });

  it('wallet disconnected during signing aborts the sign-in', async () => {
    const { provider, config } = setup();
    const gate = provider.hold('personal_sign');
    const p = signIn(config);
    await gate.entered;
    provider.emit('disconnect', rpcError(4900));
    gate.release();
    expect(await p.catch((e) => e)).toMatchObject({ name: 'AbortedError', reason: 'disconnected' });
  });

  it('sign-out while the sign-in is in flight wins: no session is left', async () => {
    const { endpoint, config } = setup();
    await connect(config);
    const hold = endpoint.hold('POST /signin');
    const p = signIn(config);
    await hold.entered;
    const out = signOut(config);
    hold.release();
    await out;
    expect(await p.catch((e) => e)).toMatchObject({ name: 'AbortedError', reason: 'signedOut' });
    expect(config.store.getState().session).toBeNull();
    expect(endpoint.cookie).toBeNull();
  });
});

describe('races', () => {
  it('two connect() calls prompt the wallet once and share the result', async () => {
    const { provider, config } = setup({ trusted: false });
    const [a, b] = await Promise.all([connect(config), connect(config)]);
    expect(a).toBe(b);
    expect(provider.count('eth_requestAccounts')).toBe(1);
  });

  it('a click on connect during the silent reconnect waits for it instead of prompting', async () => {
    const { provider, config, storage } = setup({ trusted: true });
    storage.setItem('moralis.recentConnectorId', '"injected"');
    const [r, c] = await Promise.all([reconnect(config), connect(config)]);
    expect(r?.account).toBe(c.account);
    expect(provider.count('eth_requestAccounts')).toBe(0);
    expect(provider.count('eth_accounts')).toBe(1);
  });

  it('StrictMode mounts reconnect and ask /me once', async () => {
    const { provider, endpoint, config, storage } = setup({ trusted: true });
    storage.setItem('moralis.recentConnectorId', '"injected"');
    function Page() {
      useUser();
      return null;
    }
    render(
      <StrictMode>
        <MoralisProvider config={config}>
          <Page />
        </MoralisProvider>
      </StrictMode>,
    );
    await waitFor(() => expect(config.store.getState().wallet.status).toBe('connected'));
    await waitFor(() => expect(config.store.getState().sessionStatus).toBe('success'));
    expect(provider.count('eth_accounts')).toBe(1);
    expect(endpoint.paths().filter((p) => p === 'GET /me')).toHaveLength(1);
  });

  it('two signIn() calls sign once', async () => {
    const { provider, endpoint, config } = setup();
    const [a, b] = await Promise.all([signIn(config), signIn(config)]);
    expect(a).toEqual(b);
    expect(provider.count('personal_sign')).toBe(1);
    expect(endpoint.paths().filter((p) => p === 'POST /signin')).toHaveLength(1);
  });

  it('a stale /me answer (sent before a sign-in) does not wipe the fresh session', async () => {
    const { endpoint, config } = setup();
    const hold = endpoint.hold('GET /me');
    const me = fetchUser(config);
    await hold.entered; // the server answered 401: nobody signed in yet
    const user = await signIn(config);
    hold.release();
    expect(await me).toEqual(user);
    expect(config.store.getState().session?.user.objectId).toBe(user.objectId);
    expect(config.store.getState().sessionStatus).toBe('success');
  });

  it('a stale /me answer (sent before a sign-out) does not bring the user back', async () => {
    const { endpoint, config } = setup();
    await signIn(config);
    const hold = endpoint.hold('GET /me');
    const me = fetchUser(config);
    await hold.entered; // the server answered with the user
    await signOut(config);
    hold.release();
    expect(await me).toBeNull();
    expect(config.store.getState().session).toBeNull();
  });

  it('a sign-in waits for the sign-out in flight, so its cookie is not cleared by the older answer', async () => {
    const { provider, endpoint, config } = setup();
    await signIn(config);
    const hold = endpoint.hold('POST /signout');
    provider.switchAccount(Wallet.createRandom()); // ends the session; POST /signout in flight
    await hold.entered;
    const p = signIn(config);
    await flush();
    expect(endpoint.paths().filter((x) => x === 'GET /message')).toHaveLength(1);
    hold.release();
    await p;
    expect(endpoint.answered.slice(-3)).toEqual(['POST /signout', 'GET /message', 'POST /signin']);
    expect(config.store.getState().session?.address).toBe(lower(provider.wallet.address));
  });

  it('a failed switch to another connector keeps the wallet that was connected', async () => {
    const evm = createFakeEip1193({ trusted: true });
    const solana = createFakePhantom({ trusted: false });
    solana.connect = async () => {
      throw rpcError(4001, 'User rejected the request.');
    };
    const endpoint = createFakeEndpoint();
    const config = createConfig({
      connectors: [injected({ target: () => evm }), phantom({ target: () => solana })],
      fetch: endpoint.fetch,
      storage: memoryStorage(),
    });
    await signIn(config);
    const before = config.store.getState().wallet;
    const err = await connect(config, { connector: 'phantom' }).catch((e) => e);
    expect(err).toMatchObject({ name: 'UserRejectedRequestError', code: 4001 });
    expect(config.store.getState().wallet).toEqual(before);
    expect(config.store.getState().session).not.toBeNull();
    // still listening to the EVM wallet
    evm.emit('chainChanged', '0x5');
    expect(config.store.getState().wallet.chainId).toBe(5);
  });

  it('a connect that finishes after a newer one is dropped', async () => {
    const slow = createFakeEip1193({ trusted: true });
    const fast = createFakeEip1193({ trusted: true });
    const config = createConfig({
      connectors: [injected({ id: 'slow', target: () => slow }), injected({ id: 'fast', target: () => fast })],
      storage: memoryStorage(),
    });
    const gate = slow.hold('eth_accounts');
    const first = connect(config, { connector: 'slow' });
    await gate.entered;
    await connect(config, { connector: 'fast' });
    gate.release();
    expect(await first.catch((e) => e)).toMatchObject({ name: 'AbortedError', reason: 'superseded' });
    expect(config.store.getState().wallet.account).toBe(lower(fast.wallet.address));
    expect(slow.listenerCount('accountsChanged')).toBe(0);
  });
});

describe('useLiveQuery follows the session', () => {
  it('closes the stream and clears the list on sign-out and account switch; reopens for the next session', async () => {
    FakeEventSource.instances = [];
    const { provider, config } = setup();
    const cfg = Object.assign(config, {}) as Config;
    const wrapper = ({ children }: { children: ReactNode }) => (
      <MoralisProvider config={cfg} reconnectOnMount={false}>
        {children}
      </MoralisProvider>
    );
    const { result } = renderHook(
      () => useLiveQuery({ className: 'Item', EventSource: FakeEventSource as unknown as EventSourceCtor }),
      { wrapper },
    );
    expect(FakeEventSource.instances).toHaveLength(0); // signed out: no stream
    expect(result.current.status).toBe('idle');
    await act(() => signIn(cfg));
    expect(FakeEventSource.instances).toHaveLength(1);
    const first = FakeEventSource.instances[0]!;
    act(() => first.send('snapshot', { objects: [{ objectId: 'a-1' }] }));
    expect(result.current.objects).toEqual([{ objectId: 'a-1' }]);

    act(() => provider.switchAccount(Wallet.createRandom()));
    expect(first.closed).toBe(true);
    expect(result.current.objects).toEqual([]);
    expect(result.current.status).toBe('idle');
    expect(FakeEventSource.instances).toHaveLength(1);

    await act(() => signIn(cfg));
    expect(FakeEventSource.instances).toHaveLength(2);
    const second = FakeEventSource.instances[1]!;
    expect(second.closed).toBe(false);
    act(() => second.send('snapshot', { objects: [{ objectId: 'b-1' }] }));
    expect(result.current.objects).toEqual([{ objectId: 'b-1' }]);

    await act(() => signOut(cfg));
    expect(second.closed).toBe(true);
    expect(result.current.objects).toEqual([]);
    expect(FakeEventSource.instances).toHaveLength(2);
  });

  it('a session change that keeps someone signed in (another user seen by /me) reopens the stream', async () => {
    FakeEventSource.instances = [];
    const { config, endpoint } = setup();
    await signIn(config);
    await disconnect(config);
    const { result } = renderHook(() =>
      useLiveQuery({ config, className: 'Item', EventSource: FakeEventSource as unknown as EventSourceCtor }),
    );
    expect(FakeEventSource.instances).toHaveLength(1);
    act(() => FakeEventSource.instances[0]!.send('snapshot', { objects: [{ objectId: 'mine' }] }));
    expect(result.current.objects).toHaveLength(1);
    // Another tab signed in as someone else: the cookie changed; /me tells.
    endpoint.setCookieFor({ objectId: 'other', username: 'other' });
    await act(() => fetchUser(config));
    expect(config.store.getState().session?.user.objectId).toBe('other');
    expect(FakeEventSource.instances[0]!.closed).toBe(true);
    expect(FakeEventSource.instances).toHaveLength(2);
    expect(result.current.objects).toEqual([]);
  });
});

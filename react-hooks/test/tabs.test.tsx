// Sessions across tabs, and answers saying the session is gone. Two configs sharing one BroadcastChannel name (and
// one fake endpoint, i.e. one cookie jar, and one storage) in this process act as two tabs of the app.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import { BroadcastChannel as NodeBroadcastChannel } from 'node:worker_threads';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createConfig,
  createEndpointClient,
  EndpointError,
  fetchUser,
  hydrate,
  injected,
  isSessionGone,
  memoryStorage,
  MoralisProvider,
  signIn,
  signOut,
  useLiveQuery,
  useMoralisQuery,
  useNativeBalance,
  type BroadcastChannelCtor,
  type Config,
  type StorageLike,
} from '../src/index.js';
import { createFakeEip1193 } from './helpers/eip1193.js';
import { createFakeEndpoint } from './helpers/endpoint.js';
import { ES, FakeEventSource } from './helpers/eventSource.js';

const BC = NodeBroadcastChannel as unknown as BroadcastChannelCtor;
const open: { close(): void }[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

/** Two tabs: one wallet, one cookie jar (endpoint), one storage; each its own config (store). */
function twoTabs(storageKey: string, extra: Partial<Parameters<typeof createConfig>[0]> = {}) {
  const provider = createFakeEip1193({ trusted: true, chainId: 1337 });
  const endpoint = createFakeEndpoint();
  const storage = memoryStorage();
  const make = () =>
    createConfig({
      connectors: [injected({ target: () => provider })],
      fetch: endpoint.fetch,
      storage,
      storageKey,
      multiInjectedProviderDiscovery: false,
      BroadcastChannel: BC,
      ...extra,
    });
  const a = make();
  const b = make();
  return { provider, endpoint, storage, a, b };
}

/** A raw channel of the same name as the tabs' (to post as a third tab would). */
function rawChannel(config: Config) {
  const c = new NodeBroadcastChannel(`moralis-go:${config.storage.key}:${config.endpoint}`);
  open.push(c);
  return c;
}

function wrapperFor(config: Config) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>
      <MoralisProvider config={config} reconnectOnMount={false}>
        {children}
      </MoralisProvider>
    </QueryClientProvider>
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('sign-out across tabs', () => {
  it('a sign-out in one tab ends the session in the other, with no request from the other', async () => {
    const { endpoint, a, b } = twoTabs('tabs1');
    await signIn(a);
    hydrate(b); // the second tab opens: it reads the stored session
    expect(b.store.getState().session?.user.objectId).toBe(a.store.getState().session?.user.objectId);
    const before = endpoint.calls.length;
    await signOut(a);
    await waitFor(() => expect(b.store.getState().session).toBeNull());
    expect(b.store.getState().sessionEnded).toBe('signedOut');
    // Tab A sent POST /signout; tab B sent nothing (no /me, no second sign-out).
    expect(endpoint.paths().slice(before)).toEqual(['POST /signout']);
  });

  it('the other tab learns of a session refused by the endpoint (401) too', async () => {
    const { endpoint, a, b } = twoTabs('tabs2');
    await signIn(a);
    hydrate(b);
    endpoint.revoke();
    await expect(a.client.query({ className: 'Item' })).rejects.toMatchObject({ status: 401, code: 209 });
    expect(a.store.getState().session).toBeNull();
    await waitFor(() => expect(b.store.getState().session).toBeNull());
    expect(b.store.getState().sessionEnded).toBe('expired');
  });

  it('a session started after the other tab signed out is kept; malformed messages are ignored', async () => {
    const { b } = twoTabs('tabs3');
    await signIn(b);
    const startedAt = Date.now();
    const raw = rawChannel(b);
    // Sent before this tab's session started: stale, kept.
    raw.postMessage({ type: 'sessionEnded', reason: 'signedOut', at: startedAt - 60_000 });
    for (const bad of [null, 'x', '{"type":"sessionEnded"}', { type: 'sessionEnded', reason: 'other', at: Date.now() + 1e6 },
      { type: 'signIn', reason: 'signedOut', at: Date.now() + 1e6 }, { type: 'sessionEnded', reason: 'signedOut', at: 'later' }]) {
      raw.postMessage(bad);
    }
    await sleep(50);
    expect(b.store.getState().session).not.toBeNull();
    // Sent after it started: ends it.
    raw.postMessage({ type: 'sessionEnded', reason: 'signedOut', at: Date.now() + 1 });
    await waitFor(() => expect(b.store.getState().session).toBeNull());
  });

  it('syncTabs: false neither tells nor listens', async () => {
    const { a, b } = twoTabs('tabs4', { syncTabs: false });
    await signIn(a);
    hydrate(b);
    await signOut(a);
    await sleep(50);
    expect(b.store.getState().session).not.toBeNull();
  });

  it('without BroadcastChannel, storage events carry the message', async () => {
    vi.stubGlobal('BroadcastChannel', undefined);
    const endpoint = createFakeEndpoint();
    const provider = createFakeEip1193({ trusted: true });
    const shared = memoryStorage();
    const make = (storage: StorageLike) =>
      createConfig({ connectors: [injected({ target: () => provider })], fetch: endpoint.fetch, storage, storageKey: 'tabs5', multiInjectedProviderDiscovery: false });
    const a = make(shared);
    const b = make(shared);
    // jsdom fires no storage event in the writing window: record what tab A writes and replay it as the browser
    // would in tab B.
    const written: [string, string][] = [];
    const setItem = vi.spyOn(Storage.prototype, 'setItem').mockImplementation((k, v) => void written.push([k, v]));
    vi.spyOn(Storage.prototype, 'removeItem').mockImplementation(() => {});
    await signIn(a);
    hydrate(b);
    await signOut(a);
    expect(setItem).toHaveBeenCalled();
    const [key, value] = written.at(-1)!;
    expect(key).toBe('moralis-go:tabs5:/auth.tabMessage');
    expect(b.store.getState().session).not.toBeNull();
    window.dispatchEvent(new StorageEvent('storage', { key: 'other', newValue: value }));
    expect(b.store.getState().session).not.toBeNull();
    window.dispatchEvent(new StorageEvent('storage', { key, newValue: value }));
    expect(b.store.getState().session).toBeNull();
    expect(b.store.getState().sessionEnded).toBe('signedOut');
  });
});

describe('answers saying the session is gone', () => {
  function tab() {
    const { endpoint, a } = twoTabs(`gone${Math.random()}`, { EventSource: ES });
    return { endpoint, config: a };
  }

  it('isSessionGone: 209 anywhere, 401 where a session is needed', () => {
    expect(isSessionGone('/data/query', 401, 209)).toBe(true);
    expect(isSessionGone('/data/chain/balance?chain=1', 401, 401)).toBe(true);
    expect(isSessionGone('/me', 400, 209)).toBe(true);
    expect(isSessionGone('/signout', 401, 401)).toBe(true);
    // A 401 from /message or /signin refuses a signature or a message, not a session.
    expect(isSessionGone('/signin', 401, 101)).toBe(false);
    expect(isSessionGone('/message?address=x', 401, 101)).toBe(false);
    // A refused signature, nonce or message on a route that needs a session is not about the session either.
    expect(isSessionGone('/link', 401, 101)).toBe(false);
    expect(isSessionGone('/unlink', 401, 101)).toBe(false);
    expect(isSessionGone('/link', 401, 0)).toBe(true);
    expect(isSessionGone('/data/query', 403, 119)).toBe(false);
    expect(isSessionGone('/data/query', 429, 155)).toBe(false);
  });

  it('a 209 from a data hook ends the session at once, without waiting for /me', async () => {
    const { endpoint, config } = tab();
    await signIn(config);
    endpoint.revoke();
    const { result } = renderHook(() => useMoralisQuery({ className: 'Item' }), { wrapper: wrapperFor(config) });
    await waitFor(() => expect(config.store.getState().session).toBeNull());
    expect(config.store.getState().sessionEnded).toBe('expired');
    expect(endpoint.paths().filter((p) => p === 'GET /me')).toEqual([]);
    expect(config.storage.getItem('currentUser')).toBeNull();
    await waitFor(() => expect(result.current.fetchStatus).toBe('idle'));
  });

  it('a bare 401 (no JSON) from a chain-data hook ends the session', async () => {
    const { endpoint, config } = tab();
    await signIn(config);
    endpoint.answerOnce('GET /data/chain/balance', () => new Response('Unauthorized', { status: 401 }));
    renderHook(() => useNativeBalance(), { wrapper: wrapperFor(config) });
    await waitFor(() => expect(config.store.getState().session).toBeNull());
    expect(config.store.getState().sessionEnded).toBe('expired');
  });

  it('a refused signature (401 from /signin) does not end the session', async () => {
    const { endpoint, config } = tab();
    await signIn(config);
    endpoint.answerOnce('POST /signin', () => Response.json({ code: 101, error: 'Signature does not match address' }, { status: 401 }));
    await expect(signIn(config)).rejects.toMatchObject({ status: 401, code: 101 });
    expect(config.store.getState().session).not.toBeNull();
  });

  it('an answer about an older session does not end the newer one', async () => {
    const { endpoint, config } = tab();
    await signIn(config);
    const held = endpoint.hold('POST /data/query');
    endpoint.revoke();
    const stale = config.client.query({ className: 'Item' });
    await held.entered;
    // Meanwhile the session ended and a new one started.
    await signOut(config);
    await signIn(config);
    const current = config.store.getState().sessionId;
    held.release();
    await expect(stale).rejects.toBeInstanceOf(EndpointError);
    expect(config.store.getState().session).not.toBeNull();
    expect(config.store.getState().sessionId).toBe(current);
  });

  it('a refused answer during a sign-in ends the old session but not the sign-in', async () => {
    const { endpoint, config } = tab();
    await signIn(config);
    endpoint.revoke();
    const query = endpoint.hold('POST /data/query');
    const refused = config.client.query({ className: 'Item' });
    await query.entered; // answered 401 by the server, held back
    const post = endpoint.hold('POST /signin');
    const again = signIn(config);
    await post.entered;
    query.release();
    await expect(refused).rejects.toMatchObject({ status: 401, code: 209 });
    expect(config.store.getState().session).toBeNull();
    post.release();
    await expect(again).resolves.toMatchObject({ objectId: expect.any(String) });
    expect(config.store.getState().session).not.toBeNull();
    expect(endpoint.paths().filter((p) => p === 'POST /signout')).toEqual([]);
  });

  it('a sign-out answered "session gone" counts as signed out', async () => {
    const { endpoint, config } = tab();
    await signIn(config);
    endpoint.answerOnce('POST /signout', () => Response.json({ code: 209, error: 'Invalid session token' }, { status: 401 }));
    await expect(signOut(config)).resolves.toBeUndefined();
    expect(config.store.getState().session).toBeNull();
    expect(config.store.getState().sessionEnded).toBe('signedOut');
  });

  it('a live stream error with code 209 ends the session at once', async () => {
    const { endpoint, config } = tab();
    await signIn(config);
    FakeEventSource.instances = [];
    const { result } = renderHook(() => useLiveQuery({ className: 'Item' }), { wrapper: wrapperFor(config) });
    await waitFor(() => expect(FakeEventSource.instances).toHaveLength(1));
    const es = FakeEventSource.instances[0]!;
    act(() => es.open());
    act(() => es.send('error', { code: 209, error: 'Invalid session token' }));
    expect(config.store.getState().session).toBeNull();
    expect(config.store.getState().sessionEnded).toBe('expired');
    expect(endpoint.paths().filter((p) => p === 'GET /me')).toEqual([]);
    await waitFor(() => expect(result.current.status).toBe('idle'));
  });

  it('a live stream closed for good has /me asked at once; its 401 ends the session', async () => {
    const { endpoint, config } = tab();
    await signIn(config);
    FakeEventSource.instances = [];
    renderHook(() => useLiveQuery({ className: 'Item' }), { wrapper: wrapperFor(config) });
    await waitFor(() => expect(FakeEventSource.instances).toHaveLength(1));
    const es = FakeEventSource.instances[0]!;
    // A reconnect (network) does not ask; a refusal (the browser closes the stream) does.
    act(() => es.fail(false));
    expect(endpoint.paths().filter((p) => p === 'GET /me')).toEqual([]);
    endpoint.revoke();
    act(() => es.fail(true));
    await waitFor(() => expect(config.store.getState().session).toBeNull());
    expect(endpoint.paths().filter((p) => p === 'GET /me')).toEqual(['GET /me']);
  });

  it('a /me refused while a stored session is shown ends it (reason expired)', async () => {
    const { endpoint, config } = tab();
    await signIn(config);
    endpoint.revoke();
    await expect(fetchUser(config)).resolves.toBeNull();
    expect(config.store.getState().session).toBeNull();
    expect(config.store.getState().sessionEnded).toBe('expired');
  });

  it('a client without a config reports nothing and still rejects with the answer', async () => {
    const endpoint = createFakeEndpoint();
    const client = createEndpointClient({ baseUrl: '/auth', fetch: endpoint.fetch });
    await expect(client.query({ className: 'Item' })).rejects.toMatchObject({ status: 401, code: 209 });
    const seen: string[] = [];
    const watched = createEndpointClient({ baseUrl: '/auth', fetch: endpoint.fetch, watchSession: () => (route) => seen.push(route) });
    await expect(watched.chainData('balance', { chain: 1 })).rejects.toMatchObject({ status: 401 });
    await expect(watched.getMessage('', 'evm')).rejects.toMatchObject({ status: 400 });
    expect(seen).toEqual(['/data/chain/balance']);
  });
});

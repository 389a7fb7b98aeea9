// Sessions across tabs, and answers saying the session is gone. Two configs sharing one BroadcastChannel name (and
// one fake endpoint, i.e. one cookie jar, and one storage) in this process act as two tabs of the app.
import { act, renderHook, waitFor } from '@testing-library/react';
import { BroadcastChannel as NodeBroadcastChannel } from 'node:worker_threads';
import { Wallet } from 'ethers';
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
  signIn,
  signOut,
  useLiveQuery,
  useMoralisQuery,
  useNativeBalance,
  connect,
  useUser,
  type BroadcastChannelCtor,
  type Config,
  type EIP1193Provider,
  type StorageLike,
} from '../src/index.js';
import { createFakeEip1193 } from './helpers/eip1193.js';
import { createFakeEndpoint } from './helpers/endpoint.js';
import { ES, FakeEventSource } from './helpers/eventSource.js';
import { createLocks } from './helpers/locks.js';
import { STREAM_CLOSED_CHECK_MS } from '../src/core/actions/liveQuery.js';
import { wrapperFor } from './helpers/wrapper.js';

const BC = NodeBroadcastChannel as unknown as BroadcastChannelCtor;
const open: { close(): void }[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

/**
 * Two tabs: one wallet, one cookie jar (endpoint), one storage, one lock manager; each its own config (store).
 * `make` opens another tab.
 */
function twoTabs(storageKey: string, extra: Partial<Parameters<typeof createConfig>[0]> = {}) {
  const provider = createFakeEip1193({ trusted: true, chainId: 1337 });
  const endpoint = createFakeEndpoint();
  const storage = memoryStorage();
  const locks = createLocks();
  const make = (p: EIP1193Provider = provider) =>
    createConfig({
      connectors: [injected({ target: () => p })],
      fetch: endpoint.fetch,
      storage,
      storageKey,
      multiInjectedProviderDiscovery: false,
      BroadcastChannel: BC,
      locks,
      ...extra,
    });
  const a = make();
  const b = make();
  return { provider, endpoint, storage, locks, make, a, b };
}

/** Every message posted on the tabs' channel, as a third tab sees it. */
function recorder(config: Config) {
  const raw = rawChannel(config);
  const seen: unknown[] = [];
  raw.onmessage = (e) => void seen.push(e.data);
  return { raw, seen };
}

/** A raw channel of the same name as the tabs' (to post as a third tab would). */
function rawChannel(config: Config) {
  const c = new NodeBroadcastChannel(`moralis-go:${config.storage.key}:${config.endpoint}`);
  open.push(c);
  return c;
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

describe('sign-in, sign-out and account changes in every tab', () => {
  const user = (c: Config) => c.store.getState().session?.user.objectId ?? null;

  it('a sign-in in one tab is shown in the other (its hooks too), which asks the endpoint nothing', async () => {
    const { endpoint, a, b } = twoTabs('sync1');
    const { result } = renderHook(() => useUser({ fetchOnMount: false }), { wrapper: wrapperFor(b) });
    expect(result.current.user).toBeNull();
    const before = endpoint.calls.length;
    await signIn(a);
    await waitFor(() => expect(result.current.user?.objectId).toBe(user(a)));
    expect(b.store.getState().session).toMatchObject({ address: a.store.getState().session!.address, chain: 'evm', chainId: 1337 });
    expect(endpoint.paths().slice(before)).toEqual(['GET /message', 'POST /signin']);
  });

  it('a sign-out in the tab that did not sign in ends the session in the one that did', async () => {
    const { endpoint, a, b } = twoTabs('sync2');
    hydrate(b);
    await signIn(a);
    await waitFor(() => expect(user(b)).toBe(user(a)));
    await signOut(b);
    await waitFor(() => expect(a.store.getState().session).toBeNull());
    expect(a.store.getState().sessionEnded).toBe('signedOut');
    expect(endpoint.cookie).toBeNull();
    // And again the other way round, with the same tabs.
    await signIn(b);
    await waitFor(() => expect(user(a)).toBe(user(b)));
    await signOut(a);
    await waitFor(() => expect(b.store.getState().session).toBeNull());
  });

  it('a change of the user in one tab (GET /me) reaches the others, as the same session', async () => {
    const { endpoint, a, b } = twoTabs('sync3');
    hydrate(b);
    await signIn(a);
    await waitFor(() => expect(user(b)).toBe(user(a)));
    const sessionId = b.store.getState().sessionId;
    endpoint.users.set(user(a)!, { ...endpoint.users.get(user(a)!)!, username: 'renamed' });
    await fetchUser(a);
    await waitFor(() => expect(b.store.getState().session?.user.username).toBe('renamed'));
    expect(b.store.getState().sessionId).toBe(sessionId);
  });

  it('a tab opened later shows the state of the last change, whichever tab made it', async () => {
    const { a, b, make } = twoTabs('sync4');
    hydrate(b);
    await signIn(a);
    const late = make();
    hydrate(late);
    expect(user(late)).toBe(user(a));
    await waitFor(() => expect(user(b)).toBe(user(a)));
    await signOut(b);
    const later = make();
    hydrate(later);
    expect(later.store.getState().session).toBeNull();
    await signIn(b);
    const last = make();
    hydrate(last);
    expect(user(last)).toBe(user(b));
  });

  it('a wallet switching account in one tab ends the session in every tab, and its next sign-in is shown in all', async () => {
    const { provider, endpoint, a, b } = twoTabs('sync5');
    hydrate(b);
    await signIn(a);
    await waitFor(() => expect(user(b)).toBe(user(a)));
    const first = user(a);
    provider.switchAccount(Wallet.createRandom());
    expect(a.store.getState().session).toBeNull();
    await waitFor(() => expect(b.store.getState().session).toBeNull());
    expect(b.store.getState().sessionEnded).toBe('accountChanged');
    await waitFor(() => expect(endpoint.cookie).toBeNull());
    await signIn(a);
    await waitFor(() => expect(user(b)).toBe(user(a)));
    expect(user(a)).not.toBe(first);
  });

  it('a late message never undoes a newer state (the ordering rule)', async () => {
    const { a, b } = twoTabs('sync6');
    hydrate(b);
    const { raw, seen } = recorder(a);
    await signIn(a); // 1: session
    await signOut(a); // 2: signed out
    await waitFor(() => expect(seen).toHaveLength(2));
    await waitFor(() => expect(b.store.getState().session).toBeNull());
    const [started, signedOutMsg] = seen as [{ session: { sid: unknown } }, unknown];
    raw.postMessage(started); // the sign-in again, late: older than the sign-out
    await sleep(50);
    expect(b.store.getState().session).toBeNull();
    await signIn(a); // 3: a newer session
    await waitFor(() => expect(user(b)).toBe(user(a)));
    const current = b.store.getState().sessionId;
    raw.postMessage(signedOutMsg); // the first sign-out again: older than this session
    raw.postMessage({ type: 'gone', sid: started.session.sid, reason: 'expired' }); // the first session's end
    raw.postMessage({ ...started, stamp: { t: Date.now() + 60_000, tab: 'zz', n: 0 } }); // a change of the first, stamped later
    await sleep(50);
    expect(user(b)).toBe(user(a));
    expect(b.store.getState().sessionId).toBe(current);
  });

  it("a tab's change never overwrites a newer state another tab stored", async () => {
    const { storage, a, make } = twoTabs('sync9');
    await signIn(a);
    // Another tab stored a later state whose message has not arrived here yet (its clock is ahead).
    const later = { t: Date.now() + 60_000, tab: 'other', n: 0 };
    const other = { objectId: 'uOther', username: 'other', ethAddress: '0x00000000000000000000000000000000000000aa', accounts: [] };
    storage.setItem('sync9.currentUser', JSON.stringify(other));
    storage.setItem('sync9.session', JSON.stringify({ objectId: 'uOther', sid: later, v: later }));
    await signOut(a);
    expect(a.store.getState().session).toBeNull();
    const late = make();
    hydrate(late);
    expect(user(late)).toBe('uOther');
  });

  it('two tabs signing in with different wallets at once end up on the session the cookie holds', async () => {
    const { endpoint, locks, make } = twoTabs('sync7');
    const walletA = createFakeEip1193({ trusted: true, chainId: 1337 });
    const walletB = createFakeEip1193({ trusted: true, chainId: 1337 });
    const a = make(walletA);
    const b = make(walletB);
    await connect(a);
    await connect(b);
    const held = endpoint.hold('POST /signin');
    const signingA = signIn(a);
    await held.entered;
    const signingB = signIn(b);
    // B waits for A's sign-in to be answered and shown before its own POST goes out.
    await waitFor(() => expect(locks.waiting() + endpoint.paths().filter((p) => p === 'POST /signin').length).toBe(2));
    held.release();
    await Promise.all([signingA, signingB]);
    expect(endpoint.log.filter((l) => l.endsWith('POST /signin'))).toEqual(['> POST /signin', '< POST /signin', '> POST /signin', '< POST /signin']);
    // The cookie holds B's session (signed in last): B shows it, A (another wallet) shows none and ended nothing.
    const kept = endpoint.cookieUser();
    expect(kept).toBeDefined();
    expect(user(b)).toBe(kept);
    await waitFor(() => expect(a.store.getState().session).toBeNull());
    expect(a.store.getState().sessionEnded).toBe('accountChanged');
    expect(endpoint.paths().filter((p) => p === 'POST /signout')).toEqual([]);
    // A opened later, with no wallet, shows the cookie's session.
    const late = make(createFakeEip1193({ trusted: false }));
    hydrate(late);
    expect(user(late)).toBe(kept);
  });

  it('a sign-in releases the lock only once the clock is past its stamp, so the next tab stamps after it', async () => {
    const { a } = twoTabs('sync10');
    // A clock whose millisecond ticks every 50 reads (and a performance.now that moves 1 µs a read), however slow
    // the machine: a stamp and the next tab's could fall in the same millisecond.
    const t0 = Date.now();
    const p0 = performance.now();
    let reads = 0;
    vi.spyOn(Date, 'now').mockImplementation(() => t0 + Math.floor(++reads / 50));
    vi.spyOn(performance, 'now').mockImplementation(() => p0 + reads / 1000);
    await signIn(a);
    expect(Date.now()).toBeGreaterThan(a._internal.clock);
  });

  it('a sign-out racing a sign-in in another tab waits for it, and ends it: every tab signed out, the cookie cleared', async () => {
    const { endpoint, locks, a, b } = twoTabs('sync8');
    hydrate(b);
    const held = endpoint.hold('POST /signin');
    const signingA = signIn(a);
    await held.entered;
    const out = signOut(b);
    await waitFor(() => expect(locks.waiting() + endpoint.paths().filter((p) => p === 'POST /signout').length).toBe(1));
    held.release();
    await Promise.all([signingA, out]);
    expect(endpoint.log.filter((l) => /POST \/sign(in|out)$/.test(l))).toEqual(['> POST /signin', '< POST /signin', '> POST /signout', '< POST /signout']);
    await waitFor(() => expect(a.store.getState().session).toBeNull());
    expect(b.store.getState().session).toBeNull();
    expect(endpoint.cookie).toBeNull();
    expect(endpoint.cookieUser()).toBeUndefined();
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

  it('a live stream closed for good has /me asked shortly after; its 401 ends the session', async () => {
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

  /** Two tabs, signed in by tab A; tab B shows the session with a live query whose stream is open. */
  async function streamInSecondTab(storageKey: string) {
    const tabs = twoTabs(storageKey, { EventSource: ES });
    await signIn(tabs.a);
    hydrate(tabs.b);
    FakeEventSource.instances = [];
    renderHook(() => useLiveQuery({ className: 'Item' }), { wrapper: wrapperFor(tabs.b) });
    await waitFor(() => expect(FakeEventSource.instances).toHaveLength(1));
    const es = FakeEventSource.instances[0]!;
    act(() => es.open());
    return { ...tabs, es };
  }

  it('a live stream closed by a sign-out in another tab asks nothing when that tab\'s news lands first', async () => {
    const { endpoint, a, b, es } = await streamInSecondTab('tabs-stream-close');
    const before = endpoint.calls.length;
    // The endpoint ends tab B's stream as tab A signs out: the close may reach B before A's message does.
    act(() => es.fail(true));
    await signOut(a);
    await waitFor(() => expect(b.store.getState().session).toBeNull());
    expect(b.store.getState().sessionEnded).toBe('signedOut');
    await new Promise((r) => setTimeout(r, STREAM_CLOSED_CHECK_MS + 100));
    expect(endpoint.paths().slice(before)).toEqual(['POST /signout']);
  });

  it('a live stream ended by a sign-out says so: the session ends as signed out, before the other tab\'s news, asking nothing', async () => {
    const { endpoint, a, b, es } = await streamInSecondTab('tabs-stream-signed-out');
    const before = endpoint.calls.length;
    // Tab A's sign-out is at the endpoint, which ends B's stream with its last event; A's answer is held back.
    const out = endpoint.hold('POST /signout');
    const signingOut = signOut(a);
    await out.entered;
    act(() => es.send('error', { code: 209, error: 'Invalid session token', reason: 'signedOut' }));
    expect(b.store.getState().session).toBeNull();
    expect(b.store.getState().sessionEnded).toBe('signedOut');
    out.release();
    await signingOut;
    expect(a.store.getState().session).toBeNull();
    expect(a.store.getState().sessionEnded).toBe('signedOut');
    await new Promise((r) => setTimeout(r, STREAM_CLOSED_CHECK_MS + 100));
    expect(endpoint.paths().slice(before)).toEqual(['POST /signout']);
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

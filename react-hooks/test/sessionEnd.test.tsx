// The session's end is known to the page: the endpoint's answers say when the session ends (unless used, and its
// cap), and the hooks show signed-out then, not at the page's next call. The clock is faked (vi.useFakeTimers):
// nothing here waits for real time.
import { act, renderHook } from '@testing-library/react';
import { BroadcastChannel as NodeBroadcastChannel } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createConfig,
  END_RETRY_MS,
  hydrate,
  injected,
  memoryStorage,
  signIn,
  useUser,
  type BroadcastChannelCtor,
  type StorageLike,
} from '../src/index.js';
import { createFakeEip1193 } from './helpers/eip1193.js';
import { createFakeEndpoint, type FakeEndpointOptions } from './helpers/endpoint.js';
import { createLocks } from './helpers/locks.js';
import { wrapperFor } from './helpers/wrapper.js';

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);

beforeEach(() => {
  // Timers and Date only: Node's BroadcastChannel and promises run as they do.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
});

/** Lets what the faked clock started finish (fetches, promise chains, channel messages): real turns of the loop. */
async function settle() {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

/** Moves the clock by ms, firing what is due, and lets it finish. */
async function advance(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
    await settle();
  });
}

let n = 0;
function setup(endpointOptions: FakeEndpointOptions = { idleMs: 10 * MIN, maxMs: 60 * MIN }, storage: StorageLike = memoryStorage()) {
  const endpoint = createFakeEndpoint('/auth', endpointOptions);
  const provider = createFakeEip1193({ trusted: true, chainId: 1337 });
  const storageKey = `end${++n}`;
  const locks = createLocks();
  const make = () =>
    createConfig({
      connectors: [injected({ target: () => provider })],
      fetch: endpoint.fetch,
      storage,
      storageKey,
      multiInjectedProviderDiscovery: false,
      BroadcastChannel: NodeBroadcastChannel as unknown as BroadcastChannelCtor,
      locks,
    });
  return { endpoint, provider, storage, make, config: make() };
}

const mes = (endpoint: ReturnType<typeof createFakeEndpoint>) => endpoint.paths().filter((p) => p === 'GET /me').length;


describe('the session ends on the page when it ends at the endpoint', () => {
  it('the sign-in answer says when the session ends; an idle page shows signed out then (its hooks too)', async () => {
    const { endpoint, config } = setup();
    await signIn(config);
    expect(config.store.getState().session).toMatchObject({ expiresAt: T0 + 10 * MIN, maxExpiresAt: T0 + 60 * MIN });
    const { result } = renderHook(() => useUser({ fetchOnMount: false }), { wrapper: wrapperFor(config) });
    expect(result.current.user).not.toBeNull();
    await advance(10 * MIN - 1);
    expect(result.current.user).not.toBeNull();
    expect(mes(endpoint)).toBe(0);
    // At its end the endpoint is asked once (a request from any tab may have moved the end): it has ended.
    await advance(1);
    expect(result.current.user).toBeNull();
    expect(result.current.endedReason).toBe('expired');
    expect(mes(endpoint)).toBe(1);
    expect(config.storage.getItem('currentUser')).toBeNull();
  });

  it('a session used meanwhile goes on to its new end, and its cap ends it without a request', async () => {
    const { endpoint, config } = setup({ idleMs: 10 * MIN, maxMs: 15 * MIN });
    await signIn(config);
    await advance(6 * MIN);
    await config.client.query({ className: 'Item' }); // past half its idle life: the endpoint extends it (to the cap)
    await advance(4 * MIN); // the end the page knew: it asks, and learns the new one
    expect(mes(endpoint)).toBe(1);
    expect(config.store.getState().session).toMatchObject({ expiresAt: T0 + 15 * MIN, maxExpiresAt: T0 + 15 * MIN });
    await advance(5 * MIN - 1);
    expect(config.store.getState().session).not.toBeNull();
    await advance(1);
    expect(config.store.getState().session).toBeNull();
    expect(config.store.getState().sessionEnded).toBe('expired');
    expect(mes(endpoint)).toBe(1);
  });

  it("the end is measured from the endpoint's clock, not the browser's", async () => {
    const { config } = setup({ idleMs: 10 * MIN, maxMs: 60 * MIN, skewMs: 3 * 3600_000 - 1234 });
    await signIn(config);
    expect(config.store.getState().session).toMatchObject({ expiresAt: T0 + 10 * MIN, maxExpiresAt: T0 + 60 * MIN });
    await advance(10 * MIN);
    expect(config.store.getState().session).toBeNull();
  });

  it('a check at the end that fails keeps the session, says so, and is made again', async () => {
    const { endpoint, config } = setup();
    await signIn(config);
    endpoint.answerOnce('GET /me', () => {
      throw new TypeError('Failed to fetch');
    });
    await advance(10 * MIN);
    expect(config.store.getState().session).not.toBeNull();
    expect(config.store.getState().sessionStatus).toBe('error');
    expect(mes(endpoint)).toBe(1);
    await advance(END_RETRY_MS - 1);
    expect(mes(endpoint)).toBe(1);
    await advance(1);
    expect(mes(endpoint)).toBe(2);
    expect(config.store.getState().session).toBeNull();
  });

  it('every tab knows the end: the other tab ends at the cap too, and a tab opened after it shows none', async () => {
    const { endpoint, make, config: a } = setup({ idleMs: 60 * MIN, maxMs: 60 * MIN });
    const b = make();
    hydrate(b);
    await signIn(a);
    await settle();
    expect(b.store.getState().session).toMatchObject({ expiresAt: T0 + 60 * MIN, maxExpiresAt: T0 + 60 * MIN });
    await advance(60 * MIN);
    expect(a.store.getState().session).toBeNull();
    expect(b.store.getState().session).toBeNull();
    expect(mes(endpoint)).toBe(0);
    const late = make();
    hydrate(late);
    expect(late.store.getState().session).toBeNull();
  });

  it('a stored session already past its end is shown signed out as soon as the tab opens', async () => {
    const storage = memoryStorage();
    const { make } = setup({ idleMs: 10 * MIN, maxMs: 20 * MIN }, storage);
    const first = make();
    await signIn(first);
    vi.setSystemTime(T0 + 25 * MIN); // the page was closed, the laptop asleep
    const reopened = make();
    hydrate(reopened);
    await advance(0);
    expect(reopened.store.getState().session).toBeNull();
    expect(reopened.store.getState().sessionEnded).toBe('expired');
  });

  it('an endpoint that does not say when sessions end: no timer, the session stays until an answer ends it', async () => {
    const { endpoint, config } = setup({});
    await signIn(config);
    expect(config.store.getState().session?.expiresAt).toBeUndefined();
    await advance(365 * 24 * 60 * MIN);
    expect(config.store.getState().session).not.toBeNull();
    expect(mes(endpoint)).toBe(0);
  });
});

// Server markup (react-dom/server) hydrated in the DOM with the same initial state: no mismatch, and with
// `ssr: true` the stored state is read only after hydration.
import { act } from '@testing-library/react';
import { createElement, useEffect } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { afterEach, describe, expect, it } from 'vitest';
import {
  applyInitialState,
  cookieStorage,
  cookieToInitialState,
  createConfig,
  fetchUser,
  injected,
  memoryStorage,
  MoralisProvider,
  useUser,
  useWallet,
  type Config,
  type InitialState,
  type StorageLike,
} from '../src/index.js';
import { createFakeEndpoint } from './helpers/endpoint.js';
import { createFakeEip1193 } from './helpers/eip1193.js';

function Page() {
  const { user } = useUser({ fetchOnMount: false });
  const { account } = useWallet();
  return createElement('p', null, `user=${user?.username ?? 'none'} account=${account ?? 'none'}`);
}

async function serverThenHydrate(makeConfig: () => Config, initialState: InitialState, beforeHydrate?: (c: Config) => void) {
  const html = renderToString(createElement(MoralisProvider, { config: makeConfig(), initialState, reconnectOnMount: false }, createElement(Page)));
  const container = document.createElement('div');
  container.innerHTML = html;
  document.body.appendChild(container);
  const errors: unknown[] = [];
  const client = makeConfig();
  beforeHydrate?.(client);
  await act(async () => {
    hydrateRoot(container, createElement(MoralisProvider, { config: client, initialState, reconnectOnMount: false }, createElement(Page)), {
      onRecoverableError: (e) => errors.push(e),
    });
  });
  return { html, container, errors, client };
}

afterEach(() => {
  document.body.innerHTML = '';
  for (const c of document.cookie.split(';')) document.cookie = `${c.split('=')[0]!.trim()}=; Max-Age=0; Path=/`;
});

describe('hydration', () => {
  it('cookie state: the server renders the user, the client hydrates without mismatch', async () => {
    const storage = cookieStorage();
    storage.setItem('moralis.currentUser', JSON.stringify({ objectId: 'u1', username: 'alice', ethAddress: '0xa' }));
    const make = () => createConfig({ ssr: true, storage: cookieStorage() });
    const initialState = cookieToInitialState(make(), document.cookie);
    const { html, container, errors } = await serverThenHydrate(make, initialState);
    expect(html).toContain('user=alice');
    expect(errors).toEqual([]);
    expect(container.textContent).toBe('user=alice account=none');
  });

  it('ssr: the first client render ignores storage (read after hydration), then shows it', async () => {
    let committed = false;
    const early: string[] = [];
    const backing = memoryStorage();
    backing.setItem('moralis.currentUser', JSON.stringify({ objectId: 'u2', username: 'bob' }));
    const spy: StorageLike = { ...backing, getItem: (k) => (committed || early.push(k), backing.getItem(k)) };
    const make = () => createConfig({ ssr: true, storage: spy });
    const html = renderToString(createElement(MoralisProvider, { config: make(), initialState: { session: null } }, createElement(Page)));
    expect(html).toContain('user=none');
    const container = document.createElement('div');
    container.innerHTML = html;
    document.body.appendChild(container);
    const errors: unknown[] = [];
    const client = make();
    let firstRender = '';
    function Recorder() {
      const { user } = useUser({ fetchOnMount: false });
      if (!firstRender) firstRender = `user=${user?.username ?? 'none'}`;
      // Children's effects run before the provider's: from here on, reading storage is allowed.
      useEffect(() => {
        committed = true;
      }, []);
      return createElement(Page);
    }
    await act(async () => {
      hydrateRoot(container, createElement(MoralisProvider, { config: client, initialState: { session: null }, reconnectOnMount: false }, createElement(Recorder)), {
        onRecoverableError: (e) => errors.push(e),
      });
    });
    expect(errors).toEqual([]);
    expect(firstRender).toBe('user=none');
    expect(early).toEqual([]); // no storage read before hydration was committed
    expect(container.textContent).toBe('user=bob account=none'); // read after hydration
  });

  it('a state change before hydration (an early action) does not make the markup mismatch', async () => {
    const endpoint = createFakeEndpoint();
    endpoint.setCookieFor({ objectId: 'u3', username: 'carol' });
    const make = () => createConfig({ ssr: true, storage: memoryStorage(), fetch: endpoint.fetch });
    const { errors, container } = await serverThenHydrate(make, { session: null }, () => {});
    expect(errors).toEqual([]);
    expect(container.textContent).toBe('user=none account=none');
    // Now with the store already changed when hydrateRoot runs.
    document.body.innerHTML = '';
    const second = await serverThenHydrate(make, { session: null }, (c) => {
      applyInitialState(c, { session: null });
      c.store.setState({ session: { user: { objectId: 'u3', username: 'carol' } } });
    });
    expect(second.errors).toEqual([]);
    expect(second.container.textContent).toBe('user=carol account=none');
    await fetchUser(second.client);
  });

  it('ssr with a wallet: after hydration the reconnect runs and ends a session of another account', async () => {
    const provider = createFakeEip1193({ trusted: true });
    const storage = memoryStorage();
    storage.setItem('moralis.recentConnectorId', '"injected"');
    const make = () => createConfig({ ssr: true, storage, connectors: [injected({ target: () => provider })], fetch: createFakeEndpoint().fetch });
    const initialState: InitialState = { session: { user: { objectId: 'u4', username: 'dave', ethAddress: '0x' + '1'.repeat(40) }, address: '0x' + '1'.repeat(40), chain: 'evm' } };
    const html = renderToString(createElement(MoralisProvider, { config: make(), initialState }, createElement(Page)));
    expect(html).toContain('user=dave account=none');
    const container = document.createElement('div');
    container.innerHTML = html;
    document.body.appendChild(container);
    const errors: unknown[] = [];
    const client = make();
    await act(async () => {
      hydrateRoot(container, createElement(MoralisProvider, { config: client, initialState }, createElement(Page)), {
        onRecoverableError: (e) => errors.push(e),
      });
    });
    await act(() => new Promise((r) => setTimeout(r, 20)));
    expect(errors).toEqual([]);
    expect(container.textContent).toBe(`user=none account=${provider.wallet.address.toLowerCase()}`);
    expect(client.store.getState().sessionEnded).toBe('accountChanged');
  });
});

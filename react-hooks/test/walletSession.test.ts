import { describe, expect, it } from 'vitest';
import { connect, createConfig, disconnect, hydrate, injected, memoryStorage, phantom, reconnect, signIn } from '../src/index.js';
import { createFakePhantom } from './helpers/phantom.js';
import { createFakeEndpoint } from './helpers/endpoint.js';
import { createFakeEip1193 } from './helpers/eip1193.js';

function setup(options: Parameters<typeof createFakeEip1193>[0] = {}) {
  const provider = createFakeEip1193(options);
  const endpoint = createFakeEndpoint();
  const storage = memoryStorage();
  const connector = injected({ target: () => provider });
  const config = createConfig({ connectors: [connector], fetch: endpoint.fetch, storage });
  return { provider, endpoint, storage, connector, config };
}

describe('wallet session state', () => {
  it('activating sets the lower-cased account and the chain id', async () => {
    const { provider, config, connector, storage } = setup({ chainId: 5 });
    await connect(config);
    expect(config.store.getState().wallet).toEqual({
      connector,
      account: provider.wallet.address.toLowerCase(),
      chainId: 5,
      chainType: 'evm',
      status: 'connected',
    });
    expect(provider.wallet.address).not.toBe(provider.wallet.address.toLowerCase());
    expect(storage.map.get('moralis.recentConnectorId')).toBe('"injected"');
  });

  it('deactivate clears account, chain and connector and stops listening', async () => {
    const { provider, config, storage } = setup();
    await connect(config);
    expect(provider.listenerCount('accountsChanged')).toBe(1);
    await disconnect(config);
    expect(config.store.getState().wallet).toEqual({ connector: null, account: null, chainId: null, chainType: null, status: 'disconnected' });
    expect(provider.listenerCount('accountsChanged')).toBe(0);
    expect(provider.listenerCount('chainChanged')).toBe(0);
    expect(provider.listenerCount('disconnect')).toBe(0);
    expect(storage.map.has('moralis.recentConnectorId')).toBe(false);
  });

  it('chainChanged updates the chain id', async () => {
    const { provider, config } = setup();
    await connect(config);
    provider.emit('chainChanged', '0x89');
    expect(config.store.getState().wallet.chainId).toBe(137);
  });

  it('a switched account ends the sign-in session of the old account', async () => {
    const { provider, config, endpoint, storage } = setup({ trusted: true });
    await signIn(config);
    expect(config.store.getState().session?.user.ethAddress).toBe(provider.wallet.address.toLowerCase());
    expect(storage.map.has('moralis.currentUser')).toBe(true);
    expect(endpoint.cookie).not.toBeNull();
    const other = '0x' + 'AB'.repeat(20);
    provider.emit('accountsChanged', [other]);
    expect(config.store.getState().wallet.account).toBe(other.toLowerCase());
    expect(config.store.getState().session).toBeNull();
    expect(storage.map.has('moralis.currentUser')).toBe(false);
    await Promise.resolve();
    await new Promise((r) => setTimeout(r, 0));
    expect(endpoint.paths()).toContain('POST /signout');
    expect(endpoint.cookie).toBeNull();
  });

  it('the same account reported again keeps the session', async () => {
    const { provider, config, endpoint } = setup({ trusted: true });
    await signIn(config);
    provider.emit('accountsChanged', [provider.wallet.address]);
    expect(config.store.getState().session).not.toBeNull();
    expect(endpoint.paths()).not.toContain('POST /signout');
  });

  it('accountsChanged with no account and disconnect both deactivate', async () => {
    const a = setup();
    await connect(a.config);
    a.provider.emit('accountsChanged', []);
    expect(a.config.store.getState().wallet.account).toBeNull();
    const b = setup();
    await connect(b.config);
    b.provider.emit('disconnect', { code: 4900 });
    expect(b.config.store.getState().wallet).toEqual({ connector: null, account: null, chainId: null, chainType: null, status: 'disconnected' });
  });

  it('reconnect uses the trusted connect only', async () => {
    const trusted = setup({ trusted: true });
    trusted.storage.setItem('moralis.recentConnectorId', '"injected"');
    expect((await reconnect(trusted.config))?.account).toBe(trusted.provider.wallet.address.toLowerCase());
    const untrusted = setup({ trusted: false });
    untrusted.storage.setItem('moralis.recentConnectorId', '"injected"');
    expect(await reconnect(untrusted.config)).toBeNull();
    expect(untrusted.provider.requests.map((r) => r.method)).toEqual(['eth_accounts']);
  });

  it('restores the stored user and its wallet binding (never a token) on hydrate, not on createConfig', async () => {
    const { config, storage, endpoint, provider } = setup({ trusted: true, chainId: 5 });
    await signIn(config);
    const stored = JSON.parse(storage.map.get('moralis.currentUser')!);
    const account = provider.wallet.address.toLowerCase();
    expect(stored.ethAddress).toBe(account);
    const binding = JSON.parse(storage.map.get('moralis.session')!);
    expect(binding).toMatchObject({ objectId: stored.objectId, address: account, chain: 'evm', chainId: 5 });
    // The session's stamp (its identity across tabs) and the stamp of the stored state: never a token.
    expect(Object.keys(binding).sort()).toEqual(['address', 'chain', 'chainId', 'objectId', 'sid', 'v']);
    expect([...storage.map.values()].join()).not.toContain('r:token');
    const reads: string[] = [];
    const spy = { ...storage, getItem: (k: string) => (reads.push(k), storage.getItem(k)) };
    const again = createConfig({ connectors: [], fetch: endpoint.fetch, storage: spy });
    expect(reads).toEqual([]);
    expect(again.store.getState().session).toBeNull();
    hydrate(again);
    expect(again.store.getState().session).toMatchObject({ user: { objectId: stored.objectId }, address: account, chainId: 5 });
  });

  it('a switched Phantom account ends the Solana sign-in session', async () => {
    const solana = createFakePhantom({ trusted: true });
    const endpoint = createFakeEndpoint();
    const config = createConfig({ connectors: [phantom({ target: () => solana })], fetch: endpoint.fetch, storage: memoryStorage() });
    const user = await signIn(config);
    expect(user.solAddress).toBe(solana.address);
    expect(config.store.getState().session?.address).toBe(solana.address);
    const other = createFakePhantom();
    solana.emit('accountChanged', { toString: () => other.address });
    expect(config.store.getState().wallet.account).toBe(other.address);
    expect(config.store.getState().session).toBeNull();
    solana.emit('accountChanged', null);
    expect(config.store.getState().wallet.account).toBeNull();
    await disconnect(config);
    expect(solana.calls.at(-1)!.method).toBe('disconnect');
  });
});

import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createFakeEip1193 } from './helpers/eip1193.js';

const wc = vi.hoisted(() => ({
  mode: 'success' as 'success' | 'hang' | 'reject',
  initOptions: [] as Record<string, unknown>[],
  instances: [] as any[],
}));

vi.mock('@walletconnect/ethereum-provider', () => ({
  EthereumProvider: {
    async init(options: Record<string, unknown>) {
      wc.initOptions.push(options);
      const inner = createFakeEip1193({ trusted: false, chainId: 10 });
      const provider: any = {
        inner,
        session: undefined,
        accounts: [] as string[],
        chainId: 10,
        disconnected: 0,
        request: (args: any) => inner.request(args),
        on: inner.on,
        removeListener: inner.removeListener,
        connect() {
          if (wc.mode === 'hang') return new Promise(() => {});
          if (wc.mode === 'reject') return Promise.reject(new Error('relay closed'));
          provider.session = { topic: 't' };
          provider.accounts = [inner.wallet.address];
          return Promise.resolve();
        },
        async disconnect() {
          provider.disconnected++;
          provider.session = undefined;
        },
      };
      wc.instances.push(provider);
      return provider;
    },
  },
}));

import { connect, createConfig, disconnect, memoryStorage, signIn, walletConnect, WalletConnectError } from '../src/index.js';
import { createFakeEndpoint } from './helpers/endpoint.js';

beforeEach(() => {
  wc.mode = 'success';
  wc.initOptions.length = 0;
  wc.instances.length = 0;
});

describe('walletConnect connector (module mocked)', () => {
  it('connects, signs in with a real signature and closes the provider on deactivate', async () => {
    const endpoint = createFakeEndpoint();
    const connector = walletConnect({ projectId: 'proj', chains: [1, 10], timeoutMs: 1000 });
    const config = createConfig({ connectors: [connector], fetch: endpoint.fetch, storage: memoryStorage() });
    const res = await connect(config);
    const provider = wc.instances[0];
    expect(wc.initOptions[0]).toMatchObject({ projectId: 'proj', optionalChains: [1, 10], showQrModal: true });
    expect(res.account).toBe(provider.inner.wallet.address.toLowerCase());
    expect(res.chainId).toBe(10);
    const user = await signIn(config);
    expect(user.ethAddress).toBe(res.account);
    expect(endpoint.verified).toEqual([{ chain: 'evm', address: res.account }]);
    await disconnect(config);
    expect(provider.disconnected).toBe(1);
    expect(config.store.getState().wallet).toEqual({ connector: null, account: null, chainId: null, chainType: null, status: 'disconnected' });
  });

  it('times out when the relay never answers', async () => {
    wc.mode = 'hang';
    const connector = walletConnect({ projectId: 'proj', timeoutMs: 30 });
    const started = Date.now();
    const err = await connector.connect().catch((e) => e);
    expect(err).toBeInstanceOf(WalletConnectError);
    expect(err.name).toBe('WalletConnectError');
    expect(err.message).toBe('Could not connect via WalletConnect, error in connecting to provider');
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(wc.instances[0].disconnected).toBe(1);
    // a retry starts a fresh provider
    wc.mode = 'success';
    expect((await connector.connect()).accounts).toHaveLength(1);
    expect(wc.instances).toHaveLength(2);
  });

  it('wraps a failed connect with the same text and the cause', async () => {
    wc.mode = 'reject';
    const err = await walletConnect({ projectId: 'proj', timeoutMs: 1000 }).connect().catch((e) => e);
    expect(err.message).toBe('Could not connect via WalletConnect, error in connecting to provider');
    expect((err.cause as Error).message).toBe('relay closed');
  });

  it('concurrent connects (StrictMode, a click during reconnect) initialise one provider', async () => {
    const connector = walletConnect({ projectId: 'proj', timeoutMs: 1000 });
    const [a, b] = await Promise.all([connector.connect({ onlyIfTrusted: true }), connector.connect()]);
    expect(wc.initOptions).toHaveLength(1);
    expect(wc.instances).toHaveLength(1);
    expect(a.accounts).toEqual([]);
    expect(b.accounts).toHaveLength(1);
  });

  it('a refusal in the wallet is UserRejectedRequestError, not a relay failure', async () => {
    wc.mode = 'reject';
    const connector = walletConnect({ projectId: 'proj', timeoutMs: 1000 });
    const p = await connector.connect().catch((e) => e);
    expect(p.name).toBe('WalletConnectError');
    const rejecting = walletConnect({ projectId: 'proj', timeoutMs: 1000 });
    wc.mode = 'success';
    const provider = await (async () => {
      await rejecting.connect({ onlyIfTrusted: true });
      return wc.instances.at(-1);
    })();
    provider.connect = () => Promise.reject(Object.assign(new Error('User rejected'), { code: 4001 }));
    const err = await rejecting.connect().catch((e) => e);
    expect(err).toMatchObject({ name: 'UserRejectedRequestError', code: 4001 });
  });

  it('requires a projectId', async () => {
    await expect(walletConnect({ projectId: '' }).connect()).rejects.toMatchObject({
      name: 'ConfigError',
      message: 'WalletConnect projectId is required',
    });
    expect(wc.initOptions).toHaveLength(0);
  });
});

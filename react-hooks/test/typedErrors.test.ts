// Typed errors: a user's refusal (4001) is told from a network failure by class, name and code.
import { describe, expect, it, vi } from 'vitest';
import {
  assertChain,
  ChainMismatchError,
  connect,
  ConnectorNotFoundError,
  createConfig,
  createEndpointClient,
  EndpointError,
  injected,
  memoryStorage,
  ParseErrorCode,
  phantom,
  ProviderRpcError,
  RateLimitError,
  RATE_LIMIT_WAIT_MS,
  signIn,
  switchChain,
  toWalletError,
  UserRejectedRequestError,
  type ChainConfig,
} from '../src/index.js';
import { createFakeEndpoint } from './helpers/endpoint.js';
import { createFakeEip1193, rpcError } from './helpers/eip1193.js';
import { createFakePhantom } from './helpers/phantom.js';

function setup(options: Parameters<typeof createFakeEip1193>[0] = {}, chains?: ChainConfig[]) {
  const provider = createFakeEip1193(options);
  const endpoint = createFakeEndpoint();
  const config = createConfig({
    connectors: [injected({ target: () => provider })],
    fetch: endpoint.fetch,
    storage: memoryStorage(),
    ...(chains ? { chains } : {}),
  });
  return { provider, endpoint, config };
}

describe('wallet errors are typed', () => {
  it('a refused connect (4001) is UserRejectedRequestError, and the wallet stays disconnected', async () => {
    const { provider, config } = setup({ trusted: false });
    provider.failNext('eth_requestAccounts', rpcError(4001, 'User rejected the request.'));
    const err = await connect(config).catch((e) => e);
    expect(err).toBeInstanceOf(UserRejectedRequestError);
    expect(err).toBeInstanceOf(ProviderRpcError);
    expect(err).toMatchObject({ name: 'UserRejectedRequestError', code: 4001, message: 'User rejected the request' });
    expect((err.cause as Error).message).toBe('User rejected the request.');
    expect(config.store.getState().wallet).toMatchObject({ account: null, status: 'disconnected' });
  });

  it('a refused signature (4001) is UserRejectedRequestError; nothing is posted', async () => {
    const { provider, endpoint, config } = setup({ trusted: true });
    provider.failNext('personal_sign', rpcError(4001));
    const err = await signIn(config).catch((e) => e);
    expect(err).toBeInstanceOf(UserRejectedRequestError);
    expect(endpoint.paths()).toEqual(['GET /message']);
  });

  it('Phantom refusals are typed too', async () => {
    const solana = createFakePhantom({ trusted: false });
    solana.connect = async () => {
      throw rpcError(4001, 'User rejected the request.');
    };
    const config = createConfig({ connectors: [phantom({ target: () => solana })], storage: memoryStorage() });
    expect(await connect(config).catch((e) => e)).toBeInstanceOf(UserRejectedRequestError);
  });

  it('a network failure is an EndpointError (code 100, status 0), not a rejection', async () => {
    const provider = createFakeEip1193({ trusted: true });
    const config = createConfig({
      connectors: [injected({ target: () => provider })],
      storage: memoryStorage(),
      fetch: async () => {
        throw new TypeError('Failed to fetch');
      },
    });
    const err = await signIn(config).catch((e) => e);
    expect(err).toBeInstanceOf(EndpointError);
    expect(err).not.toBeInstanceOf(UserRejectedRequestError);
    expect(err).toMatchObject({ code: ParseErrorCode.ConnectionFailed, status: 0, message: 'XMLHttpRequest failed: Failed to fetch' });
  });

  it('toWalletError unwraps ethers v6 errors and maps the EIP-1193 codes', () => {
    const ethersRejected = Object.assign(new Error('user rejected action'), {
      code: 'ACTION_REJECTED',
      info: { error: { code: 4001, message: 'denied' } },
    });
    expect(toWalletError(ethersRejected)).toBeInstanceOf(UserRejectedRequestError);
    expect(toWalletError(Object.assign(new Error('x'), { code: 'ACTION_REJECTED' }))).toBeInstanceOf(UserRejectedRequestError);
    expect(toWalletError({ cause: { error: rpcError(4001) } })).toBeInstanceOf(UserRejectedRequestError);
    expect(toWalletError(rpcError(4100))).toMatchObject({ name: 'UnauthorizedProviderError', code: 4100 });
    expect(toWalletError(rpcError(4900))).toMatchObject({ name: 'ProviderDisconnectedError', code: 4900 });
    expect(toWalletError(rpcError(4902), { chainId: 7 })).toMatchObject({ name: 'UnrecognizedChainError', chainId: 7 });
    expect(toWalletError(rpcError(-32002))).toMatchObject({ name: 'ResourceUnavailableError' });
    expect(toWalletError(rpcError(-32603, 'Internal error'))).toMatchObject({ name: 'ProviderRpcError', code: -32603, message: 'Internal error' });
    const plain = new Error('no code');
    expect(toWalletError(plain)).toBe(plain);
  });

  it('an unknown connector id is ConnectorNotFoundError', async () => {
    const { config } = setup();
    const err = await connect(config, { connector: 'nope' }).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectorNotFoundError);
    expect(err).toMatchObject({ message: 'Connector not found', details: 'no connector with id "nope"' });
    const empty = createConfig({ connectors: [], storage: memoryStorage() });
    expect(await connect(empty).catch((e) => e)).toBeInstanceOf(ConnectorNotFoundError);
  });

  it('429 is a RateLimitError with Retry-After; other answers keep their Parse code', async () => {
    const client = createEndpointClient({
      baseUrl: '/auth',
      maxRateLimitWaitMs: 0,
      fetch: async () =>
        new Response('{"code":155,"error":"Too many requests"}', { status: 429, headers: { 'Retry-After': '3' } }),
    });
    const err = await client.me().catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toBeInstanceOf(EndpointError);
    expect(err).toMatchObject({ name: 'RateLimitError', code: 155, status: 429, retryAfter: 3 });
  });

  it('a call over the rate limit waits for Retry-After and is sent again, up to maxRateLimitWaitMs in all', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const sent: string[] = [];
      let refusals = 2;
      const client = createEndpointClient({
        baseUrl: '/auth',
        fetch: async (url, init) => {
          sent.push(`${init?.method} ${url}`);
          if (refusals-- > 0) return new Response('{"code":155,"error":"Too many requests"}', { status: 429, headers: { 'Retry-After': '1' } });
          return Response.json({});
        },
      });
      const out = client.signOut();
      await vi.advanceTimersByTimeAsync(999);
      expect(sent).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(251 + 1250);
      await expect(out).resolves.toBeUndefined();
      expect(sent).toEqual(['POST /auth/signout', 'POST /auth/signout', 'POST /auth/signout']);
      // A Retry-After past what is left of RATE_LIMIT_WAIT_MS: refused at once, with the answer's error.
      const slow = createEndpointClient({
        baseUrl: '/auth',
        fetch: async () => new Response('{"code":155,"error":"Too many requests"}', { status: 429, headers: { 'Retry-After': '60' } }),
      });
      await expect(slow.getMessage('0xabc', 'evm')).rejects.toMatchObject({ name: 'RateLimitError', retryAfter: 60 });
      expect(RATE_LIMIT_WAIT_MS).toBe(10_000);
    } finally {
      vi.useRealTimers();
    }
  });

  it('an aborted request rejects with the abort reason, not a network error', async () => {
    const client = createEndpointClient({
      baseUrl: '/auth',
      fetch: (_u, init) =>
        new Promise((_r, reject) => init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))),
    });
    const controller = new AbortController();
    const p = client.getMessage('0xabc', 'evm', { signal: controller.signal });
    controller.abort(new Error('stop'));
    expect((await p.catch((e) => e)).message).toBe('stop');
  });
});

describe('switchChain and the chain guard', () => {
  it('switches chains; a chain unknown to the wallet is added from the config then switched to', async () => {
    const { provider, config } = setup({ trusted: true, chainId: 1, knownChains: [1] }, [
      { id: 1, name: 'Ethereum' },
      { id: 1337, name: 'Local', rpcUrl: 'http://127.0.0.1:8545' },
    ]);
    await connect(config);
    expect(await switchChain(config, { chainId: 1337 })).toBe(1337);
    expect(config.store.getState().wallet.chainId).toBe(1337);
    expect(provider.requests.map((r) => r.method).filter((m) => m.startsWith('wallet_'))).toEqual([
      'wallet_switchEthereumChain',
      'wallet_addEthereumChain',
      'wallet_switchEthereumChain',
    ]);
    const add = provider.requests.find((r) => r.method === 'wallet_addEthereumChain')!.params as any[];
    expect(add[0]).toMatchObject({ chainId: '0x539', chainName: 'Local', rpcUrls: ['http://127.0.0.1:8545'] });
  });

  it('an unknown chain without rpcUrl is UnrecognizedChainError; a refusal is UserRejectedRequestError', async () => {
    const { provider, config } = setup({ trusted: true, chainId: 1, knownChains: [1] });
    await connect(config);
    expect(await switchChain(config, { chainId: 99 }).catch((e) => e)).toMatchObject({ name: 'UnrecognizedChainError', chainId: 99 });
    provider.failNext('wallet_switchEthereumChain', rpcError(4001));
    expect(await switchChain(config, { chainId: 1 }).catch((e) => e)).toBeInstanceOf(UserRejectedRequestError);
    expect(config.store.getState().wallet.chainId).toBe(1);
  });

  it('bad input and no wallet give typed errors', async () => {
    const { config } = setup({ trusted: true });
    expect(await switchChain(config, { chainId: 5 }).catch((e) => e)).toMatchObject({ name: 'Web3NotEnabledError' });
    await connect(config);
    for (const bad of [0, -1, 1.5, Number.NaN, '5' as unknown as number]) {
      expect(await switchChain(config, { chainId: bad }).catch((e) => e)).toMatchObject({
        name: 'InvalidArgumentError',
        message: 'chainId must be a positive integer',
      });
    }
  });

  it('assertChain asks the wallet (not the last event) and throws ChainMismatchError', async () => {
    const { provider, config } = setup({ trusted: true, chainId: 1 }, [{ id: 1, name: 'Ethereum' }]);
    await connect(config);
    expect(await assertChain(config, 1)).toBe(1);
    expect(await assertChain(config)).toBe(1);
    provider.setChain(56); // switched without an event reaching us yet
    const err = await assertChain(config, 1).catch((e) => e);
    expect(err).toBeInstanceOf(ChainMismatchError);
    expect(err).toMatchObject({ expectedChainId: 1, currentChainId: 56, message: 'Chain mismatch: expected chain 1, the wallet is on chain 56' });
    expect(await assertChain(config).catch((e) => e)).toMatchObject({ name: 'ChainMismatchError', expectedChainId: 1 });
  });

  it('createConfig refuses malformed chains and duplicate connector ids', () => {
    expect(() => createConfig({ chains: [{ id: 0, name: 'x' }] })).toThrowError('Invalid chain: id must be a positive integer');
    expect(() => createConfig({ connectors: [injected(), injected()] })).toThrowError('Duplicate connector id "injected"');
  });
});

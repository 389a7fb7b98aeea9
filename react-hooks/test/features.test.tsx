// EIP-6963 discovery, switchChain and the chain guard, contract read/write/receipt, and the data hooks.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, renderHook, waitFor } from '@testing-library/react';
import { Interface, Wallet } from 'ethers';
import { StrictMode, type ReactNode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import {
  connect,
  contractFunction,
  createConfig,
  hashQueryKey,
  injected,
  memoryStorage,
  MoralisProvider,
  readContract,
  signIn,
  signOut,
  useChainGuard,
  useCloudFunction,
  useMoralisQuery,
  useNativeBalance,
  useReadContract,
  useSwitchChain,
  useWaitForTransactionReceipt,
  useWallet,
  useWriteContract,
  waitForTransactionReceipt,
  watchInjectedProviders,
  writeContract,
  type ChainConfig,
  type Config,
} from '../src/index.js';
import { createFakeEndpoint } from './helpers/endpoint.js';
import { createFakeEip1193, rpcError, type FakeEip1193Options } from './helpers/eip1193.js';

const ERC20 = [
  'function balanceOf(address owner) view returns (uint256)',
  'function transfer(address to, uint256 amount) returns (bool)',
  'function name() view returns (string)',
];
const TOKEN = '0x' + '22'.repeat(20);
const erc20 = new Interface(ERC20);

function setup(evm: FakeEip1193Options = {}, chains?: ChainConfig[]) {
  const balances = new Map<string, bigint>();
  const provider = createFakeEip1193({
    trusted: true,
    call: ({ to, data }) => {
      if (to.toLowerCase() !== TOKEN) return '0x';
      const tx = erc20.parseTransaction({ data })!;
      if (tx.name === 'balanceOf') return erc20.encodeFunctionResult('balanceOf', [balances.get(String(tx.args[0]).toLowerCase()) ?? 0n]);
      if (tx.name === 'name') return erc20.encodeFunctionResult('name', ['Test Token']);
      return '0x';
    },
    ...evm,
  });
  const endpoint = createFakeEndpoint();
  const config = createConfig({
    connectors: [injected({ target: () => provider })],
    fetch: endpoint.fetch,
    storage: memoryStorage(),
    multiInjectedProviderDiscovery: false,
    ...(chains ? { chains } : {}),
  });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>
      <MoralisProvider config={config} reconnectOnMount={false}>
        {children}
      </MoralisProvider>
    </QueryClientProvider>
  );
  return { provider, endpoint, config, wrapper, balances, queryClient };
}

function announce(rdns: string, provider: unknown, extra: Record<string, unknown> = {}) {
  window.dispatchEvent(
    new CustomEvent('eip6963:announceProvider', {
      detail: Object.freeze({ info: { uuid: crypto.randomUUID(), name: rdns.split('.')[1], icon: 'data:image/svg+xml,<svg/>', rdns, ...extra }, provider }),
    }),
  );
}

describe('EIP-6963 discovery', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it('announced wallets become connectors (once each, by rdns), usable to connect', async () => {
    const metamask = createFakeEip1193({ trusted: true });
    const rabby = createFakeEip1193({ trusted: true });
    // Wallets answer requestProvider with an announcement, as real extensions do.
    const onRequest = () => {
      announce('io.metamask', metamask);
      announce('io.rabby', rabby, { icon: 'javascript:alert(1)' });
    };
    window.addEventListener('eip6963:requestProvider', onRequest);
    cleanups.push(() => window.removeEventListener('eip6963:requestProvider', onRequest));
    const config = createConfig({ storage: memoryStorage(), connectors: [injected()] });
    const { result } = renderHook(() => useWallet(), {
      wrapper: ({ children }) => (
        <StrictMode>
          <MoralisProvider config={config} reconnectOnMount={false}>
            {children}
          </MoralisProvider>
        </StrictMode>
      ),
    });
    await waitFor(() => expect(result.current.connectors.map((c) => c.id)).toEqual(['injected', 'io.metamask', 'io.rabby']));
    // announced again (a late wallet re-announces): no duplicate
    act(() => announce('io.metamask', metamask));
    expect(result.current.connectors).toHaveLength(3);
    const mm = result.current.connectors[1]!;
    expect(mm).toMatchObject({ name: 'metamask', rdns: 'io.metamask', icon: 'data:image/svg+xml,<svg/>' });
    expect(result.current.connectors[2]!.icon).toBeUndefined(); // not an image data URI
    await act(() => result.current.connectAsync({ connector: 'io.rabby' }));
    expect(result.current.account).toBe(rabby.wallet.address.toLowerCase());
  });

  it('ignores malformed announcements and stops listening when the last user is done', () => {
    const config = createConfig({ storage: memoryStorage() });
    const stop1 = watchInjectedProviders(config);
    const stop2 = watchInjectedProviders(config);
    announce('not a rdns', createFakeEip1193());
    announce('io.bad', { notAProvider: true });
    expect(config.connectors.map((c) => c.id)).toEqual(['injected']);
    stop1();
    announce('io.late', createFakeEip1193());
    expect(config.connectors.map((c) => c.id)).toEqual(['injected', 'io.late']);
    stop2();
    announce('io.later', createFakeEip1193());
    expect(config.connectors.map((c) => c.id)).toEqual(['injected', 'io.late']);
  });

  it('the connector used last is reconnected after a reload even when it is a discovered one', async () => {
    const wallet = createFakeEip1193({ trusted: true });
    const onRequest = () => announce('io.metamask', wallet);
    window.addEventListener('eip6963:requestProvider', onRequest);
    cleanups.push(() => window.removeEventListener('eip6963:requestProvider', onRequest));
    const storage = memoryStorage();
    storage.setItem('moralis.recentConnectorId', '"io.metamask"');
    const config = createConfig({ storage });
    render(<MoralisProvider config={config} />);
    await waitFor(() => expect(config.store.getState().wallet.account).toBe(wallet.wallet.address.toLowerCase()));
  });
});

describe('useSwitchChain and useChainGuard', () => {
  it('reports the wrong chain and switches to the expected one', async () => {
    const { config, wrapper } = setup({ chainId: 1 }, [{ id: 1337, name: 'Local', rpcUrl: 'http://127.0.0.1:8545' }]);
    const { result } = renderHook(() => ({ guard: useChainGuard(), sw: useSwitchChain() }), { wrapper });
    expect(result.current.guard.isWrongChain).toBe(false); // no wallet yet
    await act(() => connect(config));
    expect(result.current.guard).toMatchObject({ isWrongChain: true, expectedChainId: 1337, currentChainId: 1 });
    await act(() => result.current.guard.switchChainAsync());
    expect(result.current.guard).toMatchObject({ isWrongChain: false, currentChainId: 1337 });
    expect(result.current.sw.chains.map((c) => c.id)).toEqual([1337]);
    await act(() => result.current.sw.switchChainAsync({ chainId: 1 }).catch(() => {}));
    expect(result.current.guard.isWrongChain).toBe(true);
  });

  it('a refused switch lands in error as UserRejectedRequestError', async () => {
    const { provider, config, wrapper } = setup({ chainId: 1 });
    await connect(config);
    provider.failNext('wallet_switchEthereumChain', rpcError(4001));
    const { result } = renderHook(() => useSwitchChain(), { wrapper });
    act(() => result.current.switchChain({ chainId: 5 }));
    await waitFor(() => expect(result.current.status).toBe('error'));
    expect(result.current.error).toMatchObject({ name: 'UserRejectedRequestError', code: 4001 });
  });
});

describe('contracts', () => {
  it('readContract decodes with ethers; the spec texts for bad function names', async () => {
    const { provider, config, balances } = setup();
    await connect(config);
    const me = provider.wallet.address.toLowerCase();
    balances.set(me, 1234n);
    expect(await readContract(config, { address: TOKEN, abi: ERC20, functionName: 'balanceOf', args: [me] })).toBe(1234n);
    expect(await readContract(config, { address: TOKEN, abi: ERC20, functionName: 'name' })).toBe('Test Token');
    expect(() => contractFunction(ERC20, 'nope')).toThrowError('Function does not exist in abi');
    const overloaded = ['function f(uint256)', 'function f(address)'];
    expect(() => contractFunction(overloaded, 'f')).toThrowError('Multiple function definitions found in the abi');
    expect(contractFunction(overloaded, 'f(address)').fragment.format()).toBe('f(address)');
    await expect(readContract(config, { address: 'nope', abi: ERC20, functionName: 'name' })).rejects.toMatchObject({
      name: 'InvalidArgumentError',
      message: 'Invalid contract address',
    });
    await expect(readContract(config, { address: TOKEN, abi: ERC20, functionName: 'balanceOf', args: ['x'] })).rejects.toMatchObject({
      name: 'InvalidArgumentError',
    });
    // A read for another chain than the wallet's, with no rpcUrl for it, is refused.
    await expect(readContract(config, { address: TOKEN, abi: ERC20, functionName: 'name', chainId: 5 })).rejects.toMatchObject({
      name: 'ChainMismatchError',
    });
  });

  it('useReadContract caches by call and re-reads when the wallet changes chain', async () => {
    const { provider, config, wrapper, balances } = setup();
    await connect(config);
    const me = provider.wallet.address.toLowerCase();
    balances.set(me, 7n);
    const { result } = renderHook(
      () => [
        useReadContract({ address: TOKEN, abi: ERC20, functionName: 'balanceOf', args: [me] }),
        useReadContract({ address: TOKEN, abi: ERC20, functionName: 'balanceOf', args: [me] }),
      ],
      { wrapper },
    );
    await waitFor(() => expect(result.current[0]!.data).toBe(7n));
    expect(result.current[1]!.data).toBe(7n);
    expect(provider.count('eth_call')).toBe(1); // de-duplicated
    balances.set(me, 8n);
    act(() => provider.emit('chainChanged', '0x5'));
    await waitFor(() => expect(result.current[0]!.data).toBe(8n));
    expect(provider.count('eth_call')).toBe(2);
    expect(hashQueryKey([1n, { b: 1, a: 2 }])).toBe('["1n",{"a":2,"b":1}]');
  });

  it('useWriteContract checks the chain, sends, and useWaitForTransactionReceipt waits for it', async () => {
    const { provider, config, wrapper } = setup({ chainId: 1337 });
    await connect(config);
    const to = Wallet.createRandom().address;
    const { result, rerender } = renderHook(
      ({ hash }: { hash?: string }) => ({ w: useWriteContract(), r: useWaitForTransactionReceipt({ hash, pollingIntervalMs: 10 }) }),
      { wrapper, initialProps: {} },
    );
    expect(result.current.r.fetchStatus).toBe('idle');
    const { hash } = await act(() =>
      result.current.w.writeContractAsync({ address: TOKEN, abi: ERC20, functionName: 'transfer', args: [to, 5n], chainId: 1337 }),
    );
    const sent = provider.sent[0]!;
    expect(sent.from).toBe(provider.wallet.address.toLowerCase());
    expect(sent.to).toBe(TOKEN);
    expect(erc20.decodeFunctionData('transfer', sent.data!).map(String)).toEqual([to, '5']);
    rerender({ hash });
    await new Promise((r) => setTimeout(r, 40));
    expect(result.current.r.status).toBe('pending');
    provider.mine(hash);
    await waitFor(() => expect(result.current.r.data).toMatchObject({ transactionHash: hash, status: 'success', blockNumber: 11 }));
    // wrong chain: refused before the wallet is asked
    const before = provider.sent.length;
    await act(() =>
      result.current.w.writeContractAsync({ address: TOKEN, abi: ERC20, functionName: 'transfer', args: [to, 1n], chainId: 1 }).catch(() => {}),
    );
    expect(result.current.w.error).toMatchObject({ name: 'ChainMismatchError', expectedChainId: 1, currentChainId: 1337 });
    expect(provider.sent.length).toBe(before);
    // a refusal in the wallet
    provider.failNext('eth_sendTransaction', rpcError(4001));
    await expect(writeContract(config, { address: TOKEN, abi: ERC20, functionName: 'transfer', args: [to, 1n] })).rejects.toMatchObject({
      name: 'UserRejectedRequestError',
    });
  });
});

describe('data hooks (through the endpoint, with the session)', () => {
  function seed(endpoint: ReturnType<typeof createFakeEndpoint>, config: Config) {
    const user = config.store.getState().session!.user;
    endpoint.objects.set('Item', [
      { objectId: 'i1', owner: user.objectId, title: 'one' },
      { objectId: 'x1', owner: 'someone-else', title: 'hidden' },
    ]);
    endpoint.balances.set(String(user.ethAddress), '1000');
  }

  it('run only while signed in, go through the endpoint with the cookie, and never show the previous session\'s data', async () => {
    const { provider, endpoint, config, wrapper, queryClient } = setup();
    const { result } = renderHook(
      () => ({
        items: useMoralisQuery<{ objectId: string; title: string }>({ className: 'Item', count: true }),
        fn: useCloudFunction<{ objectId: string; params: unknown }>({ name: 'whoami', params: { a: 1 } }),
        balance: useNativeBalance(),
      }),
      { wrapper },
    );
    expect(result.current.items.fetchStatus).toBe('idle'); // signed out: nothing sent
    expect(endpoint.dataCalls).toEqual([]);
    await act(() => signIn(config));
    seed(endpoint, config);
    await act(() => queryClient.invalidateQueries());
    await waitFor(() => expect(result.current.items.data?.results.map((o) => o.objectId)).toEqual(['i1']));
    await waitFor(() => expect(result.current.fn.data?.params).toEqual({ a: 1 }));
    await waitFor(() => expect(result.current.balance.data).toEqual({ balance: '1000' }));
    expect(result.current.items.data?.count).toBe(1);
    const firstUser = config.store.getState().session!.user.objectId;
    expect(endpoint.dataCalls.every((c) => c.user === firstUser)).toBe(true);
    expect(endpoint.dataCalls.find((c) => c.path === '/data/chain/balance')?.query).toEqual({ chain: '1' });

    // Account switch: the session ends, the data is gone from the hooks and from the cache.
    act(() => provider.switchAccount(Wallet.createRandom()));
    expect(result.current.items.data).toBeUndefined();
    expect(result.current.balance.data).toBeUndefined();
    expect(queryClient.getQueryCache().findAll({ queryKey: ['moralis'] }).filter((q) => q.state.data !== undefined && q.queryKey[2] === 'session')).toEqual([]);

    // The next user sees their own (empty) data, fetched anew.
    await act(() => signIn(config));
    await waitFor(() => expect(result.current.items.data?.results).toEqual([]));
    expect(endpoint.dataCalls.at(-1)!.user).not.toBe(firstUser);
    await act(() => signOut(config));
    expect(result.current.items.data).toBeUndefined();
  });

  it('an answer for the previous session that arrives late is not shown to the next one', async () => {
    const { provider, endpoint, config, wrapper } = setup();
    await signIn(config);
    const first = config.store.getState().session!.user.objectId;
    endpoint.objects.set('Item', [{ objectId: 'a1', owner: first }]);
    const hold = endpoint.hold('POST /data/query');
    const { result } = renderHook(() => useMoralisQuery<{ objectId: string }>({ className: 'Item' }), { wrapper });
    await hold.entered; // the server answered with user A's objects; the answer is on its way
    act(() => provider.switchAccount(Wallet.createRandom()));
    await act(() => signIn(config));
    hold.release();
    await waitFor(() => expect(result.current.data?.results).toEqual([]));
    expect(result.current.data?.results.map((o) => o.objectId)).not.toContain('a1');
  });

  it('a receipt is returned only once the node\'s latest block has reached it', async () => {
    const { provider, config } = setup({ chainId: 1337 });
    await connect(config);
    const { hash } = await writeContract(config, { address: TOKEN, abi: ERC20, functionName: 'transfer', args: [Wallet.createRandom().address, 1n] });
    provider.mine(hash);
    provider.lagHead(3);
    const receipt = await waitForTransactionReceipt(config, { hash, pollingIntervalMs: 1 });
    expect(receipt.blockNumber).toBe(11);
    expect(provider.count('eth_blockNumber')).toBe(4); // three answers a block behind, then the receipt's block
  });

  it('a receipt refetches the chain data, once past the endpoint\'s cache', async () => {
    const { provider, endpoint, config, wrapper, queryClient } = setup({ chainId: 1337 });
    endpoint.chainCache.on = true; // the endpoint caches chain data, as the Go data proxy does
    await signIn(config);
    const me = String(config.store.getState().session!.user.ethAddress).toLowerCase();
    endpoint.balances.set(me, '1000');
    const { result } = renderHook(() => useNativeBalance(), { wrapper });
    await waitFor(() => expect(result.current.data).toEqual({ balance: '1000' }));

    // The chain changes; a plain refetch gets the endpoint's cached answer.
    endpoint.balances.set(me, '900');
    await act(() => queryClient.invalidateQueries());
    await waitFor(() => expect(endpoint.dataCalls.filter((c) => c.path === '/data/chain/balance')).toHaveLength(2));
    expect(result.current.data).toEqual({ balance: '1000' });
    expect(endpoint.dataCalls.every((c) => c.cacheControl === undefined)).toBe(true);

    // A receipt: the hook refetches by itself, asking past the cache, once.
    const { hash } = await writeContract(config, { address: TOKEN, abi: ERC20, functionName: 'transfer', args: [Wallet.createRandom().address, 1n] });
    provider.mine(hash);
    await act(() => waitForTransactionReceipt(config, { hash, pollingIntervalMs: 5 }));
    await waitFor(() => expect(result.current.data).toEqual({ balance: '900' }));
    const balanceCalls = endpoint.dataCalls.filter((c) => c.path === '/data/chain/balance');
    expect(balanceCalls.map((c) => c.cacheControl)).toEqual([undefined, undefined, 'no-cache']);
    await act(() => queryClient.invalidateQueries());
    await waitFor(() => expect(endpoint.dataCalls.filter((c) => c.path === '/data/chain/balance')).toHaveLength(4));
    expect(endpoint.dataCalls.at(-1)!.cacheControl).toBeUndefined();
  });

  it('errors keep their Parse code and are not retried', async () => {
    const { endpoint, config, wrapper } = setup();
    await signIn(config);
    const { result } = renderHook(() => useCloudFunction({ name: 'missing' }), { wrapper });
    await waitFor(() => expect(result.current.status).toBe('error'));
    expect(result.current.error).toMatchObject({ name: 'EndpointError', code: 141, status: 400, message: 'Invalid function: "missing"' });
    expect(endpoint.dataCalls.filter((c) => c.body?.name === 'missing')).toHaveLength(1);
  });

  it('without a QueryClientProvider a per-config client is used', async () => {
    const { config } = setup();
    await signIn(config);
    const { result } = renderHook(() => useCloudFunction({ config, name: 'whoami' }));
    await waitFor(() => expect(result.current.data).toMatchObject({ objectId: config.store.getState().session!.user.objectId }));
  });
});

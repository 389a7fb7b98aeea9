import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import {
  ConfigNotFoundError,
  createConfig,
  injected,
  memoryStorage,
  MoralisProvider,
  phantom,
  useConfig,
  useSession,
  useSignIn,
  useSignOut,
  useSolanaAccounts,
  useUser,
  useWallet,
  type Config,
} from '../src/index.js';
import { createFakeEndpoint } from './helpers/endpoint.js';
import { createFakeEip1193, type FakeEip1193Options } from './helpers/eip1193.js';
import { createFakePhantom, siwsText, type FakePhantomOptions } from './helpers/phantom.js';
import { ed25519 } from '@noble/curves/ed25519.js';

function setup(evm: FakeEip1193Options = {}, sol: FakePhantomOptions = {}) {
  const provider = createFakeEip1193(evm);
  const solana = createFakePhantom(sol);
  const endpoint = createFakeEndpoint();
  const config = createConfig({
    connectors: [injected({ target: () => provider }), phantom({ target: () => solana })],
    fetch: endpoint.fetch,
    storage: memoryStorage(),
  });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <MoralisProvider config={config} reconnectOnMount={false}>
      {children}
    </MoralisProvider>
  );
  return { provider, solana, endpoint, config, wrapper };
}

/** All the hooks of a page at once. */
function useAll() {
  return {
    wallet: useWallet(),
    signIn: useSignIn(),
    signOut: useSignOut(),
    user: useUser({ fetchOnMount: false }),
    sol: useSolanaAccounts(),
  };
}

describe('useConfig', () => {
  it('throws a named error outside MoralisProvider', () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(() => renderHook(() => useConfig())).toThrowError(ConfigNotFoundError);
    // Every hook throws it too (the assertion fails if nothing is thrown).
    for (const hook of [useWallet, useSignIn, useSignOut, useUser, useSolanaAccounts]) {
      expect(() => renderHook(() => hook())).toThrowError(expect.objectContaining({ name: 'ConfigNotFoundError' }));
    }
  });

  it('accepts an explicit config without a provider', () => {
    const config = createConfig({ storage: memoryStorage() });
    const { result } = renderHook(() => useConfig({ config }));
    expect(result.current).toBe(config);
    const w = renderHook(() => useWallet({ config }));
    expect(w.result.current.status).toBe('idle');
  });
});

describe('useWallet', () => {
  it('connects (trusted, then full) and disconnects', async () => {
    const { provider, wrapper } = setup({ trusted: false, chainId: 56 });
    const { result } = renderHook(() => useWallet(), { wrapper });
    expect(result.current).toMatchObject({ status: 'idle', account: null, chainId: null, isConnected: false });
    let pending: Promise<unknown>;
    act(() => {
      pending = result.current.connectAsync();
    });
    expect(result.current.status).toBe('pending');
    await act(() => pending);
    expect(result.current).toMatchObject({
      status: 'success',
      account: provider.wallet.address.toLowerCase(),
      chainId: 56,
      chainType: 'evm',
      isConnected: true,
    });
    expect(provider.requests.map((r) => r.method)).toEqual(['eth_accounts', 'eth_requestAccounts', 'eth_chainId']);
    act(() => provider.emit('chainChanged', '0x1'));
    expect(result.current.chainId).toBe(1);
    await act(() => result.current.disconnect());
    expect(result.current).toMatchObject({ status: 'idle', account: null, chainId: null, isConnected: false });
  });

  it('reports the no-account error as status error', async () => {
    const { wrapper } = setup({ noAccounts: true });
    const { result } = renderHook(() => useWallet(), { wrapper });
    act(() => result.current.connect());
    await waitFor(() => expect(result.current.status).toBe('error'));
    expect(result.current.error?.message).toBe('Cannot authenticate, no account returned from provider');
  });
});

describe('useSignIn (Ethereum)', () => {
  it('gets the message, signs it with personal_sign, posts it and keeps the session', async () => {
    const { provider, endpoint, config, wrapper } = setup({ trusted: true });
    const { result } = renderHook(useAll, { wrapper });
    await act(() => result.current.signIn.signInAsync());
    const address = provider.wallet.address.toLowerCase();
    expect(result.current.signIn.status).toBe('success');
    expect(result.current.signIn.data?.ethAddress).toBe(address);
    expect(result.current.user).toMatchObject({ isSignedIn: true, user: { ethAddress: address } });
    expect(result.current.wallet.account).toBe(address);
    // the session is the endpoint's cookie: no token reaches page scripts
    expect(config.store.getState().session?.sessionToken).toBeUndefined();
    expect(endpoint.cookie).toMatch(/^r:/);
    expect(endpoint.paths()).toEqual(['GET /message', 'POST /signin']);
    expect(endpoint.calls[0]!.query).toEqual({ address, chain: 'evm' });
    // personal_sign got [hexMessage, address]; the fake endpoint verified the signature with ethers.verifyMessage
    const sign = provider.requests.find((r) => r.method === 'personal_sign')!;
    const [hexMessage, signer] = sign.params as [string, string];
    expect(Buffer.from(hexMessage.slice(2), 'hex').toString('utf8')).toBe(endpoint.calls[1]!.body.message);
    expect(signer).toBe(address);
    expect(endpoint.calls[1]!.body.signature).toMatch(/^0x[0-9a-f]{130}$/);
    expect(endpoint.verified).toEqual([{ chain: 'evm', address }]);
    expect(endpoint.calls.every((c) => c.credentials === 'include')).toBe(true);
  });

  it('"Data not signed" when the wallet gives an empty signature', async () => {
    const { endpoint, wrapper } = setup({ trusted: true, emptySignature: true });
    const { result } = renderHook(() => useSignIn(), { wrapper });
    act(() => result.current.signIn());
    await waitFor(() => expect(result.current.status).toBe('error'));
    expect(result.current.error).toMatchObject({ name: 'DataNotSignedError', message: 'Data not signed' });
    expect(endpoint.paths()).toEqual(['GET /message']);
  });

  it('"Cannot authenticate, no account returned from provider"', async () => {
    const { endpoint, wrapper } = setup({ noAccounts: true });
    const { result } = renderHook(() => useSignIn(), { wrapper });
    await act(() => result.current.signInAsync().catch(() => {}));
    expect(result.current.error?.message).toBe('Cannot authenticate, no account returned from provider');
    expect(endpoint.calls).toHaveLength(0);
  });

  it('endpoint errors come back as EndpointError', async () => {
    const { config, wrapper, endpoint } = setup({ trusted: true });
    // the wallet signs a different message than the one the endpoint issued
    const spy = vi.spyOn(config.connectors[0]!, 'signMessage').mockImplementation(
      async (_m, a) => (await import('ethers')).hexlify(new Uint8Array(65)) + a.slice(2, 2),
    );
    const { result } = renderHook(() => useSignIn(), { wrapper });
    await act(() => result.current.signInAsync().catch(() => {}));
    expect(spy).toHaveBeenCalledOnce();
    expect(result.current.error).toMatchObject({ name: 'EndpointError', code: 101, status: 401, message: 'Signature does not match address' });
    expect(endpoint.cookie).toBeNull();
  });
});

describe('useSignIn (Solana)', () => {
  it('signs with signMessage (base58) and the endpoint verifies the ed25519 signature', async () => {
    const { solana, endpoint, config, wrapper } = setup({}, { trusted: false });
    const { result } = renderHook(useAll, { wrapper });
    await act(() => result.current.signIn.signInAsync({ connector: config.connectors[1] }));
    expect(result.current.user.user).toMatchObject({ solAddress: solana.address, solAccounts: [solana.address] });
    expect(result.current.wallet).toMatchObject({ account: solana.address, chainType: 'solana' });
    expect(endpoint.calls[0]!.query).toEqual({ address: solana.address, chain: 'solana', style: 'siws' });
    // No solana:signIn feature: the endpoint's Sign-In with Solana text is signed as it is with signMessage.
    expect(endpoint.calls[1]!.body.message).toMatch(/^app\.test wants you to sign in with your Solana account:\n/);
    expect(endpoint.calls[1]!.body.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/);
    expect(endpoint.verified).toEqual([{ chain: 'solana', address: solana.address }]);
    expect(solana.calls.map((c) => c.method)).toEqual(['connect', 'connect', 'signMessage']);
  });

  it("uses the wallet's solana:signIn when it offers it; the endpoint verifies the text the wallet wrote", async () => {
    const { solana, endpoint, config, wrapper } = setup({}, { trusted: false, signInFeature: true });
    const { result } = renderHook(useAll, { wrapper });
    await act(() => result.current.signIn.signInAsync({ connector: config.connectors[1] }));
    expect(result.current.user.user).toMatchObject({ solAddress: solana.address });
    expect(solana.calls.map((c) => c.method)).toEqual(['connect', 'connect', 'solana:signIn']);
    // The wallet got the endpoint's input and wrote exactly the issued text; the real ed25519 signature verifies.
    const input = solana.calls[2]!.args[0] as Record<string, string>;
    expect(input).toMatchObject({ domain: 'app.test', address: solana.address, chainId: 'mainnet', version: '1' });
    expect(endpoint.calls[1]!.body.message).toBe(siwsText(input));
    expect(endpoint.verified).toEqual([{ chain: 'solana', address: solana.address }]);
  });

  it('refuses a solana:signIn answer signed by another account than the connected one, before any POST', async () => {
    const { solana, endpoint, config, wrapper } = setup({}, { trusted: false, signInFeature: true, signInKey: ed25519.utils.randomSecretKey() });
    const { result } = renderHook(() => useSignIn(), { wrapper });
    await act(() => result.current.signInAsync({ connector: config.connectors[1] }).catch(() => {}));
    expect(result.current.error).toMatchObject({ name: 'AbortedError', reason: 'accountChanged' });
    expect(solana.calls.map((c) => c.method)).toEqual(['connect', 'connect', 'solana:signIn']);
    expect(endpoint.calls.map((c) => c.path)).toEqual(['/message']);
  });

  it('"Address not found" when Phantom gives no public key', async () => {
    const { config, wrapper } = setup({}, { trusted: true, noPublicKey: true });
    const { result } = renderHook(() => useSignIn(), { wrapper });
    await act(() => result.current.signInAsync({ connector: config.connectors[1] }).catch(() => {}));
    expect(result.current.error).toMatchObject({ name: 'AddressNotFoundError', message: 'Address not found' });
  });
});

describe('useSession / useUser / useSignOut', () => {
  it('asks /me on mount: signed out (401) then signed in', async () => {
    const { endpoint, wrapper, config } = setup({ trusted: true });
    const { result } = renderHook(() => useSession(), { wrapper });
    await waitFor(() => expect(result.current.status).toBe('success'));
    expect(result.current.user).toBeNull();
    expect(endpoint.paths()).toEqual(['GET /me']);
    const { signIn } = await import('../src/index.js');
    await act(() => signIn(config));
    const fresh = createConfig({ fetch: endpoint.fetch, storage: memoryStorage() });
    const other = renderHook(() => useUser({ config: fresh }));
    await waitFor(() => expect(other.result.current.isSignedIn).toBe(true));
    expect(other.result.current.user?.objectId).toBe(result.current.user?.objectId);
  });

  it('useSignOut clears the session and the cookie', async () => {
    const { endpoint, wrapper } = setup({ trusted: true });
    const { result } = renderHook(useAll, { wrapper });
    await act(() => result.current.signIn.signInAsync());
    expect(result.current.user.isSignedIn).toBe(true);
    await act(() => result.current.signOut.signOutAsync());
    expect(result.current.user).toMatchObject({ isSignedIn: false, user: null });
    expect(result.current.signOut.status).toBe('success');
    expect(endpoint.cookie).toBeNull();
    // the wallet stays connected
    expect(result.current.wallet.isConnected).toBe(true);
  });

  it('surfaces a failing /me as status error', async () => {
    const config = createConfig({
      storage: memoryStorage(),
      fetch: async () => new Response('{"code":1,"error":"Internal server error."}', { status: 500 }),
    });
    const { result } = renderHook(() => useSession({ config }));
    await waitFor(() => expect(result.current.status).toBe('error'));
    expect(result.current.error).toMatchObject({ name: 'EndpointError', code: 1, message: 'Internal server error.' });
  });
});

describe('useSolanaAccounts', () => {
  async function signedIn() {
    const s = setup({ trusted: true }, { trusted: true });
    const hook = renderHook(useAll, { wrapper: s.wrapper });
    await act(() => hook.result.current.signIn.signInAsync());
    return { ...s, result: hook.result };
  }

  it('links a Solana address with a verified signature, then unlinks it', async () => {
    const { result, endpoint, solana, provider } = await signedIn();
    await act(() => result.current.sol.linkAsync());
    expect(result.current.sol.accounts).toEqual([solana.address]);
    expect(result.current.user.user).toMatchObject({ solAddress: solana.address, ethAddress: provider.wallet.address.toLowerCase() });
    expect(endpoint.paths().slice(2)).toEqual(['GET /message', 'POST /link']);
    expect(endpoint.calls[3]!.body).toMatchObject({ chain: 'solana', address: solana.address });
    expect(endpoint.verified.at(-1)).toEqual({ chain: 'solana', address: solana.address });
    // the EVM wallet stays the active one
    expect(result.current.wallet.chainType).toBe('evm');

    await act(() => result.current.sol.unlinkAsync(solana.address));
    expect(result.current.sol.accounts).toEqual([]);
    expect(result.current.user.user?.solAddress).toBeUndefined();
    expect(endpoint.calls.at(-1)).toMatchObject({ path: '/unlink', body: { chain: 'solana', address: solana.address } });
  });

  it.each([
    [404, 'as the Go endpoint answers it'],
    [401, 'as endpoints before the 401 rule answered it'],
  ])('a refused link (%i, code 101, %s) keeps the session', async (status) => {
    const { result, endpoint, config } = await signedIn();
    endpoint.answerOnce('POST /link', () =>
      Response.json({ code: 101, error: 'Nonce unknown, used or expired' }, { status }),
    );
    await act(() => result.current.sol.linkAsync().catch(() => {}));
    expect(result.current.sol.error).toMatchObject({ code: 101, status });
    expect(config.store.getState().session).not.toBeNull();
    expect(result.current.user.user).not.toBeNull();
  });

  it('"Address not found" when unlinking an address that is not linked', async () => {
    const { result, endpoint } = await signedIn();
    const before = endpoint.calls.length;
    await act(() => result.current.sol.unlinkAsync('NotLinked1111111111111111111111111111111111').catch(() => {}));
    expect(result.current.sol.error).toMatchObject({ name: 'AddressNotFoundError', message: 'Address not found' });
    expect(endpoint.calls.length).toBe(before);
  });

  it('"Could not get user" when linking while signed out', async () => {
    const { wrapper, solana } = setup();
    const { result } = renderHook(() => useSolanaAccounts(), { wrapper });
    await act(() => result.current.linkAsync().catch(() => {}));
    expect(result.current.error).toMatchObject({ name: 'UserNotFoundError', message: 'Could not get user' });
    expect(solana.calls).toHaveLength(0);
  });

  it('"Phantom wallet not available" when linking without Phantom', async () => {
    const { endpoint } = await signedIn();
    const config: Config = createConfig({ connectors: [phantom({ target: () => undefined })], fetch: endpoint.fetch, storage: memoryStorage() });
    config.store.setState({ session: { user: { objectId: 'u', username: 'u' } } });
    const { result } = renderHook(() => useSolanaAccounts({ config }));
    await act(() => result.current.linkAsync().catch(() => {}));
    expect(result.current.error).toMatchObject({ name: 'ProviderNotFoundError', message: 'Phantom wallet not available' });
  });
});

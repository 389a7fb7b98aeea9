import { encodeBase58 } from 'ethers';
import bs58 from 'bs58';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, createConfig, injected, memoryStorage, NoAccountError, phantom } from '../src/index.js';
import { createFakeEip1193 } from './helpers/eip1193.js';
import { createFakePhantom } from './helpers/phantom.js';

const methods = (p: { requests: { method: string }[] }) => p.requests.map((r) => r.method);

afterEach(() => {
  delete (window as any).ethereum;
  delete (window as any).solana;
});

describe('injected connector', () => {
  it('uses the trusted connect when the site is authorised (no pop-up)', async () => {
    const p = createFakeEip1193({ trusted: true, chainId: 137 });
    const res = await injected({ target: () => p }).connect();
    expect(res).toEqual({ accounts: [p.wallet.address.toLowerCase()], chainId: 137 });
    expect(methods(p)).toEqual(['eth_accounts', 'eth_chainId']);
  });

  it('falls back to eth_requestAccounts when eth_accounts gives no account', async () => {
    const p = createFakeEip1193({ trusted: false });
    const res = await injected({ target: () => p }).connect();
    expect(res.accounts).toEqual([p.wallet.address.toLowerCase()]);
    expect(methods(p)).toEqual(['eth_accounts', 'eth_requestAccounts', 'eth_chainId']);
  });

  it('falls back to eth_requestAccounts when eth_accounts is rejected', async () => {
    const p = createFakeEip1193({ rejectTrusted: true });
    const res = await injected({ target: () => p }).connect();
    expect(res.accounts).toEqual([p.wallet.address.toLowerCase()]);
    expect(methods(p)).toEqual(['eth_accounts', 'eth_requestAccounts', 'eth_chainId']);
  });

  it('onlyIfTrusted stops before the pop-up', async () => {
    const p = createFakeEip1193({ trusted: false });
    expect((await injected({ target: () => p }).connect({ onlyIfTrusted: true })).accounts).toEqual([]);
    expect(methods(p)).toEqual(['eth_accounts']);
  });

  it('reads window.ethereum at connect time', async () => {
    const c = injected();
    await expect(c.connect()).rejects.toMatchObject({ name: 'ProviderNotFoundError', message: 'Injected wallet not available' });
    const p = createFakeEip1193({ trusted: true });
    (window as any).ethereum = p;
    expect((await c.connect()).accounts).toEqual([p.wallet.address.toLowerCase()]);
  });

  it('connect action throws the exact no-account text', async () => {
    const p = createFakeEip1193({ noAccounts: true });
    const config = createConfig({ connectors: [injected({ target: () => p })], storage: memoryStorage() });
    const err = await connect(config).catch((e) => e);
    expect(err).toBeInstanceOf(NoAccountError);
    expect(err.message).toBe('Cannot authenticate, no account returned from provider');
    expect(config.store.getState().wallet.account).toBeNull();
  });
});

describe('phantom connector', () => {
  it('says when Phantom is missing', async () => {
    await expect(phantom().connect()).rejects.toThrow('Phantom wallet not available');
  });

  it('uses the trusted connect first', async () => {
    const p = createFakePhantom({ trusted: true });
    (window as any).solana = p;
    expect(await phantom().connect()).toEqual({ accounts: [p.address] });
    expect(p.calls.map((c) => c.args[0])).toEqual([{ onlyIfTrusted: true }]);
  });

  it('falls back to a full connect when the trusted one is rejected', async () => {
    const p = createFakePhantom({ trusted: false });
    expect(await phantom({ target: () => p }).connect()).toEqual({ accounts: [p.address] });
    expect(p.calls.map((c) => [c.method, c.args[0]])).toEqual([
      ['connect', { onlyIfTrusted: true }],
      ['connect', undefined],
    ]);
  });

  it('throws "Address not found" when the wallet gives no public key', async () => {
    const p = createFakePhantom({ trusted: true, noPublicKey: true });
    await expect(phantom({ target: () => p }).connect()).rejects.toMatchObject({
      name: 'AddressNotFoundError',
      message: 'Address not found',
    });
  });

  it('signs with base58 output matching bs58', async () => {
    const p = createFakePhantom({ trusted: true });
    const c = phantom({ target: () => p });
    await c.connect();
    const sig = await c.signMessage('hello', p.address);
    expect(bs58.decode(sig)).toHaveLength(64);
    expect(p.calls.at(-1)!.args[1]).toBe('utf8');
    // leading zero bytes are kept by ethers' base58 as by bs58
    const bytes = new Uint8Array([0, 0, 1, 2, 255]);
    expect(encodeBase58(bytes)).toBe(bs58.encode(bytes));
  });
});

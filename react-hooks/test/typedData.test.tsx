import { act, renderHook } from '@testing-library/react';
import { keccak256, toUtf8Bytes, verifyTypedData as ethersVerify, Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  connect,
  createConfig,
  hashTypedData,
  injected,
  memoryStorage,
  signTypedData,
  useSignTypedData,
  verifyTypedData,
  type EIP1193Provider,
  type SignTypedDataParameters,
} from '../src/index.js';
import { createFakeEip1193, rpcError, type FakeEip1193 } from './helpers/eip1193.js';

// The EIP's own example: the Mail document, its digest and the signature by keccak256("cow") (the same figures
// the Go SDK's signer tests pin).
const MAIL: SignTypedDataParameters = {
  domain: { name: 'Ether Mail', version: '1', chainId: 1, verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC' },
  types: {
    Person: [
      { name: 'name', type: 'string' },
      { name: 'wallet', type: 'address' },
    ],
    Mail: [
      { name: 'from', type: 'Person' },
      { name: 'to', type: 'Person' },
      { name: 'contents', type: 'string' },
    ],
  },
  primaryType: 'Mail',
  message: {
    from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
    to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
    contents: 'Hello, Bob!',
  },
};
const MAIL_DIGEST = '0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2';
const MAIL_SIG =
  '0x4355c47d63924e8a72e509b65029052eb6c299d53a04e167c5775fd466751c9d07299936d304c153f6443dfa05f40ff007d72911b6f72307f996231605b915621c';
const COW = new Wallet(keccak256(toUtf8Bytes('cow')));

/** The fake wallet, answering eth_signTypedData_v4 with its real ethers key as a wallet does (from the JSON payload). */
function withTypedData(fake: FakeEip1193): EIP1193Provider & { answer?: () => unknown } {
  const provider: EIP1193Provider & { answer?: () => unknown } = {
    ...fake,
    async request(args) {
      if (args.method !== 'eth_signTypedData_v4') return fake.request(args);
      fake.requests.push(args);
      const answer = provider.answer;
      provider.answer = undefined;
      if (answer) return answer();
      const [address, json] = args.params as [string, string];
      if (address.toLowerCase() !== fake.wallet.address.toLowerCase()) throw new Error('unknown address');
      const { domain, types, message } = JSON.parse(json);
      delete types.EIP712Domain;
      return fake.wallet.signTypedData(domain, types, message);
    },
  };
  return provider;
}

async function connected(wallet: Wallet = Wallet.createRandom() as unknown as Wallet) {
  const fake = createFakeEip1193({ trusted: true, chainId: 1, wallet });
  const provider = withTypedData(fake);
  const config = createConfig({ connectors: [injected({ target: () => provider })], storage: memoryStorage() });
  await connect(config);
  fake.requests.length = 0;
  return { fake, provider, config };
}

describe('useSignTypedData', () => {
  it("signs the EIP's example: the EIP's digest and signature, recovered to the account", async () => {
    const { fake, config } = await connected(COW);
    const { result } = renderHook(() => useSignTypedData({ config }));
    expect(result.current.status).toBe('idle');
    await act(() => result.current.signTypedDataAsync(MAIL));
    expect(result.current.status).toBe('success');
    const data = result.current.data!;
    expect(data.hash).toBe(MAIL_DIGEST);
    expect(data.signature).toBe(MAIL_SIG);
    expect(data.address).toBe(COW.address.toLowerCase());
    expect(ethersVerify(MAIL.domain, MAIL.types, MAIL.message, data.signature)).toBe(COW.address);
    // One wallet request with the account and the JSON payload (EIP712Domain included, as wallets want it).
    const req = fake.requests.filter((r) => r.method === 'eth_signTypedData_v4');
    expect(req).toHaveLength(1);
    const payload = JSON.parse((req[0]!.params as string[])[1]!);
    expect(payload.primaryType).toBe('Mail');
    expect(payload.types.EIP712Domain.map((f: { name: string }) => f.name)).toEqual(['name', 'version', 'chainId', 'verifyingContract']);
  });

  it('a random key: recovery gives its address; verifyTypedData agrees, and refuses another document or signer', async () => {
    const wallet = Wallet.createRandom() as unknown as Wallet;
    const { config } = await connected(wallet);
    const { signature, hash } = await signTypedData(config, MAIL);
    expect(hash).toBe(hashTypedData(MAIL));
    expect(ethersVerify(MAIL.domain, MAIL.types, MAIL.message, signature)).toBe(wallet.address);
    expect(verifyTypedData({ ...MAIL, address: wallet.address, signature })).toBe(true);
    expect(verifyTypedData({ ...MAIL, address: wallet.address.toLowerCase(), signature })).toBe(true);
    expect(verifyTypedData({ ...MAIL, address: COW.address, signature })).toBe(false);
    expect(verifyTypedData({ ...MAIL, message: { ...MAIL.message, contents: 'Hello, Alice!' }, address: wallet.address, signature })).toBe(false);
    expect(verifyTypedData({ ...MAIL, address: wallet.address, signature: '0x1234' })).toBe(false);
  });

  it('a document ethers refuses: InvalidTypedDataError, and the wallet is never asked', async () => {
    const { fake, config } = await connected();
    const bad: [string, SignTypedDataParameters][] = [
      ['uint8 out of range', { ...MAIL, types: { ...MAIL.types, Mail: [...MAIL.types.Mail!, { name: 'n', type: 'uint8' }] }, message: { ...MAIL.message, n: 256 } }],
      ['bad checksum', { ...MAIL, message: { ...MAIL.message, to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbb' } } }],
      ['wrong primaryType', { ...MAIL, primaryType: 'Person' }],
      ['EIP712Domain out of order', { ...MAIL, types: { ...MAIL.types, EIP712Domain: [{ name: 'version', type: 'string' }, { name: 'name', type: 'string' }, { name: 'chainId', type: 'uint256' }, { name: 'verifyingContract', type: 'address' }] } }],
      ['missing field', { ...MAIL, message: { from: MAIL.message.from, to: MAIL.message.to } }],
    ];
    const { result } = renderHook(() => useSignTypedData({ config }));
    for (const [name, doc] of bad) {
      await act(() => result.current.signTypedDataAsync(doc).catch(() => {}));
      expect(result.current.status, name).toBe('error');
      expect(result.current.error, name).toMatchObject({ name: 'InvalidTypedDataError' });
      expect(() => hashTypedData(doc), name).toThrowError(/^Invalid typed data: /);
    }
    expect(fake.requests).toHaveLength(0);
    // A matching EIP712Domain is accepted.
    const declared = { ...MAIL, types: { ...MAIL.types, EIP712Domain: [{ name: 'name', type: 'string' }, { name: 'version', type: 'string' }, { name: 'chainId', type: 'uint256' }, { name: 'verifyingContract', type: 'address' }] } };
    expect(hashTypedData(declared)).toBe(MAIL_DIGEST);
  });

  it('typed wallet errors: refusal, empty answer, wrong chain, no wallet', async () => {
    const { provider, config } = await connected();
    const { result } = renderHook(() => useSignTypedData({ config }));
    provider.answer = () => {
      throw rpcError(4001, 'User rejected');
    };
    await act(() => result.current.signTypedDataAsync(MAIL).catch(() => {}));
    expect(result.current.error).toMatchObject({ name: 'UserRejectedRequestError', code: 4001 });

    for (const answer of ['', '0x', null]) {
      provider.answer = () => answer;
      await expect(signTypedData(config, MAIL)).rejects.toMatchObject({ name: 'DataNotSignedError' });
    }

    await act(() => result.current.signTypedDataAsync({ ...MAIL, chainId: 137 }).catch(() => {}));
    expect(result.current.error).toMatchObject({ name: 'ChainMismatchError' });

    act(() => result.current.reset());
    expect(result.current.status).toBe('idle');

    const none = createConfig({ connectors: [injected({ target: () => withTypedData(createFakeEip1193()) })], storage: memoryStorage() });
    await expect(signTypedData(none, MAIL)).rejects.toMatchObject({ name: 'Web3NotEnabledError' });
  });
});

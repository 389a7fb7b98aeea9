import { act, renderHook } from '@testing-library/react';
import { Interface, getAddress } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  connect,
  createConfig,
  injected,
  memoryStorage,
  transfer,
  useTransfer,
  validateTransfer,
  type TransferParameters,
} from '../src/index.js';
import { createFakeEip1193 } from './helpers/eip1193.js';

const RECEIVER = '0x' + '22'.repeat(20);
const CONTRACT = '0x' + '33'.repeat(20);

async function connected() {
  const provider = createFakeEip1193({ trusted: true, chainId: 1 });
  const config = createConfig({ connectors: [injected({ target: () => provider })], storage: memoryStorage() });
  await connect(config);
  provider.requests.length = 0;
  return { provider, config, from: provider.wallet.address };
}

describe('transfer validation (exact Go texts, nothing sent)', () => {
  const cases: [string, unknown, string][] = [
    ['native receiver', { type: 'native', amount: '1' }, 'receiver is required'],
    ['native amount', { type: 'native', receiver: RECEIVER }, 'amount is required'],
    ['default type is native', { receiver: RECEIVER }, 'amount is required'],
    ['erc20 contractAddress', { type: 'erc20', receiver: RECEIVER, amount: '1' }, 'contractAddress is required'],
    ['erc20 receiver', { type: 'erc20', contractAddress: CONTRACT, amount: '1' }, 'receiver is required'],
    ['erc20 amount', { type: 'erc20', contractAddress: CONTRACT, receiver: RECEIVER }, 'amount is required'],
    ['erc721 contractAddress', { type: 'erc721', receiver: RECEIVER, tokenId: 1 }, 'contractAddress is required'],
    ['erc721 receiver', { type: 'erc721', contractAddress: CONTRACT, tokenId: 1 }, 'receiver is required'],
    ['erc721 tokenId', { type: 'erc721', contractAddress: CONTRACT, receiver: RECEIVER }, 'tokenId is required'],
    ['erc1155 contractAddress', { type: 'erc1155', receiver: RECEIVER, tokenId: 1, amount: 1 }, 'contractAddress is required'],
    ['erc1155 receiver', { type: 'erc1155', contractAddress: CONTRACT, tokenId: 1, amount: 1 }, 'receiver is required'],
    ['erc1155 tokenId', { type: 'erc1155', contractAddress: CONTRACT, receiver: RECEIVER, amount: 1 }, 'tokenId is required'],
    ['erc1155 amount', { type: 'erc1155', contractAddress: CONTRACT, receiver: RECEIVER, tokenId: 1 }, 'amount is required'],
    ['unsupported type', { type: 'erc777', receiver: RECEIVER, amount: 1 }, 'Unsupported type'],
    ['prototype key is no type', { type: 'toString', receiver: RECEIVER, amount: 1 }, 'Unsupported type'],
    ['negative token id', { type: 'erc721', contractAddress: CONTRACT, receiver: RECEIVER, tokenId: -1 }, 'Invalid token Id'],
    ['text token id', { type: 'erc721', contractAddress: CONTRACT, receiver: RECEIVER, tokenId: 'abc' }, 'Invalid token Id'],
    ['fractional token id', { type: 'erc1155', contractAddress: CONTRACT, receiver: RECEIVER, tokenId: 1.5, amount: 1 }, 'Invalid token Id'],
    ['negative amount', { type: 'native', receiver: RECEIVER, amount: -5n }, 'Invalid amount'],
  ];
  for (const [name, input, message] of cases) {
    it(`${name}: "${message}"`, async () => {
      expect(() => validateTransfer(input as TransferParameters)).toThrowError(message);
      const { provider, config } = await connected();
      const err = await transfer(config, input as TransferParameters).catch((e) => e);
      expect(err).toMatchObject({ name: 'TransferValidationError', message });
      expect(provider.requests).toHaveLength(0);
    });
  }

  it('token id 0 is valid', () => {
    expect(validateTransfer({ type: 'erc721', contractAddress: CONTRACT, receiver: RECEIVER, tokenId: 0 }).tokenId).toBe(0n);
  });

  it('no wallet: "Missing web3 instance, make sure to enable web3 or authenticate first"', async () => {
    const provider = createFakeEip1193({ trusted: true });
    const config = createConfig({ connectors: [injected({ target: () => provider })], storage: memoryStorage() });
    const { result } = renderHook(() => useTransfer({ config }));
    await act(() => result.current.transferAsync({ type: 'native', receiver: RECEIVER, amount: 1n }).catch(() => {}));
    expect(result.current.status).toBe('error');
    expect(result.current.error).toMatchObject({
      name: 'Web3NotEnabledError',
      message: 'Missing web3 instance, make sure to enable web3 or authenticate first',
    });
    expect(provider.requests).toHaveLength(0);
  });
});

describe('transfer sending (eth_sendTransaction recorded)', () => {
  const erc20 = new Interface(['function transfer(address to, uint256 amount)']);
  const erc721 = new Interface(['function safeTransferFrom(address from, address to, uint256 tokenId)']);
  const erc1155 = new Interface(['function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes data)']);

  it('native: to = receiver, value = amount, no data', async () => {
    const { provider, config, from } = await connected();
    const { result } = renderHook(() => useTransfer({ config }));
    const res = await act(() => result.current.transferAsync({ type: 'native', receiver: RECEIVER, amount: '1000000000000000000' }));
    expect(res.hash).toBe('0x' + '1'.padStart(64, '0'));
    expect(result.current).toMatchObject({ status: 'success', data: { hash: res.hash } });
    expect(provider.sent).toHaveLength(1);
    const tx = provider.sent[0]!;
    expect(getAddress(tx.to!)).toBe(getAddress(RECEIVER));
    expect(getAddress(tx.from!)).toBe(from);
    expect(BigInt(tx.value!)).toBe(10n ** 18n);
    expect(tx.data ?? '0x').toBe('0x');
  });

  it('erc20: transfer(receiver, amount) to the contract', async () => {
    const { provider, config } = await connected();
    await transfer(config, { type: 'erc20', contractAddress: CONTRACT, receiver: RECEIVER, amount: 12345n });
    const tx = provider.sent[0]!;
    expect(getAddress(tx.to!)).toBe(getAddress(CONTRACT));
    expect(tx.data).toBe(erc20.encodeFunctionData('transfer', [RECEIVER, 12345n]));
    expect(BigInt(tx.value ?? '0x0')).toBe(0n);
  });

  it('erc721: safeTransferFrom(from, to, id)', async () => {
    const { provider, config, from } = await connected();
    await transfer(config, { type: 'erc721', contractAddress: CONTRACT, receiver: RECEIVER, tokenId: '42' });
    const tx = provider.sent[0]!;
    expect(getAddress(tx.to!)).toBe(getAddress(CONTRACT));
    expect(tx.data).toBe(erc721.encodeFunctionData('safeTransferFrom', [from, RECEIVER, 42n]));
    expect(tx.data!.slice(0, 10)).toBe('0x42842e0e');
  });

  it('erc1155: safeTransferFrom(from, to, id, amount, "0x")', async () => {
    const { provider, config, from } = await connected();
    await transfer(config, { type: 'erc1155', contractAddress: CONTRACT, receiver: RECEIVER, tokenId: 7, amount: 3 });
    const tx = provider.sent[0]!;
    expect(getAddress(tx.to!)).toBe(getAddress(CONTRACT));
    expect(tx.data).toBe(erc1155.encodeFunctionData('safeTransferFrom', [from, RECEIVER, 7n, 3n, '0x']));
    expect(tx.data!.slice(0, 10)).toBe('0xf242432a');
  });

  it('chain guard: refused before the wallet is asked when the wallet is on another chain; refusals are typed', async () => {
    const { provider, config } = await connected();
    const err = await transfer(config, { type: 'native', receiver: RECEIVER, amount: 1, chainId: 137 }).catch((e) => e);
    expect(err).toMatchObject({ name: 'ChainMismatchError', expectedChainId: 137, currentChainId: 1 });
    expect(provider.sent).toHaveLength(0);
    const chained = createConfig({ connectors: [injected({ target: () => provider })], storage: memoryStorage(), chains: [{ id: 5, name: 'Goerli' }] });
    await connect(chained);
    expect(await transfer(chained, { type: 'native', receiver: RECEIVER, amount: 1 }).catch((e) => e)).toMatchObject({ name: 'ChainMismatchError', expectedChainId: 5 });
    expect(provider.sent).toHaveLength(0);
    provider.failNext('eth_sendTransaction', Object.assign(new Error('denied'), { code: 4001 }));
    expect(await transfer(config, { type: 'native', receiver: RECEIVER, amount: 1, chainId: 1 }).catch((e) => e)).toMatchObject({
      name: 'UserRejectedRequestError',
    });
  });

  it('a malformed receiver or contract is "Invalid address", before any wallet request', async () => {
    const { provider, config } = await connected();
    expect(await transfer(config, { type: 'native', receiver: 'bob.eth', amount: 1 }).catch((e) => e)).toMatchObject({
      name: 'TransferValidationError',
      message: 'Invalid address',
      details: 'receiver',
    });
    expect(await transfer(config, { type: 'erc20', contractAddress: '0x12', receiver: RECEIVER, amount: 1 }).catch((e) => e)).toMatchObject({
      message: 'Invalid address',
      details: 'contractAddress',
    });
    expect(provider.requests).toEqual([]);
  });
});

import { BrowserProvider, Interface } from 'ethers';
import { MoralisError, TransferValidationError, Web3NotEnabledError } from '../../errors/index.js';
import type { Config } from '../config.js';

/** The four transfer kinds. */
export type TransferType = 'native' | 'erc20' | 'erc721' | 'erc1155';

/** An integer amount in the token's smallest unit (wei for native): bigint, safe integer or decimal string. */
export type Amount = bigint | number | string;

/** Input of `transfer`, by type (`type` defaults to "native"). */
export type TransferParameters =
  | { type?: 'native'; receiver: string; amount: Amount }
  | { type: 'erc20'; contractAddress: string; receiver: string; amount: Amount }
  | { type: 'erc721'; contractAddress: string; receiver: string; tokenId: Amount }
  | { type: 'erc1155'; contractAddress: string; receiver: string; tokenId: Amount; amount: Amount };

/** Result of `transfer`: the transaction hash the wallet returned. */
export interface TransferResult {
  hash: string;
}

const REQUIRED: Record<TransferType, readonly string[]> = {
  native: ['receiver', 'amount'],
  erc20: ['contractAddress', 'receiver', 'amount'],
  erc721: ['contractAddress', 'receiver', 'tokenId'],
  erc1155: ['contractAddress', 'receiver', 'tokenId', 'amount'],
};

const ERC20 = new Interface(['function transfer(address to, uint256 amount) returns (bool)']);
const ERC721 = new Interface(['function safeTransferFrom(address from, address to, uint256 tokenId)']);
const ERC1155 = new Interface([
  'function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes data)',
]);

function toUint(value: unknown): bigint | undefined {
  try {
    if (typeof value === 'bigint') return value >= 0n ? value : undefined;
    if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : undefined;
    if (typeof value === 'string' && /^\s*(0x[0-9a-fA-F]+|\d+)\s*$/.test(value)) return BigInt(value.trim());
  } catch {
    return undefined;
  }
  return undefined;
}

/** A validated transfer: the type and integer values, ready to encode. */
export interface ValidTransfer {
  type: TransferType;
  receiver: string;
  contractAddress?: string;
  amount?: bigint;
  tokenId?: bigint;
}

/**
 * Checks transfer input with the Go SDK's exact texts: "{field} is required" for each missing field (in the order
 * of the type's fields), "Unsupported type", "Invalid token Id" (not an integer of at least 0), and "Invalid amount".
 */
export function validateTransfer(parameters: TransferParameters): ValidTransfer {
  const input = (parameters ?? {}) as Record<string, unknown>;
  const type = (input.type ?? 'native') as TransferType;
  const required = Object.prototype.hasOwnProperty.call(REQUIRED, type) ? REQUIRED[type] : undefined;
  if (!required) throw new TransferValidationError('Unsupported type', { details: `type ${String(input.type)}` });
  for (const field of required) {
    const v = input[field];
    if (v === undefined || v === null || v === '') throw new TransferValidationError(`${field} is required`);
  }
  const out: ValidTransfer = { type, receiver: String(input.receiver) };
  if (required.includes('contractAddress')) out.contractAddress = String(input.contractAddress);
  if (required.includes('tokenId')) {
    out.tokenId = toUint(input.tokenId);
    if (out.tokenId === undefined) throw new TransferValidationError('Invalid token Id');
  }
  if (required.includes('amount')) {
    out.amount = toUint(input.amount);
    if (out.amount === undefined) throw new TransferValidationError('Invalid amount');
  }
  return out;
}

/**
 * Sends a transfer from the connected EVM wallet through an ethers `BrowserProvider` (the wallet signs and
 * broadcasts with `eth_sendTransaction`). Throws "Missing web3 instance, make sure to enable web3 or authenticate
 * first" when no EVM wallet is connected, and validation errors before any wallet request.
 */
export async function transfer(config: Config, parameters: TransferParameters): Promise<TransferResult> {
  const { connector, account } = config.store.getState().wallet;
  if (!connector || connector.type !== 'evm' || !account) throw new Web3NotEnabledError();
  const t = validateTransfer(parameters);
  const provider = new BrowserProvider(await connector.getProvider());
  const signer = await provider.getSigner(account);
  const from = await signer.getAddress();
  if (!from) throw new MoralisError('Sender address not found');
  let tx: { to: string; data?: string; value?: bigint };
  switch (t.type) {
    case 'native':
      tx = { to: t.receiver, value: t.amount! };
      break;
    case 'erc20':
      tx = { to: t.contractAddress!, data: ERC20.encodeFunctionData('transfer', [t.receiver, t.amount!]) };
      break;
    case 'erc721':
      tx = {
        to: t.contractAddress!,
        data: ERC721.encodeFunctionData('safeTransferFrom', [from, t.receiver, t.tokenId!]),
      };
      break;
    case 'erc1155':
      tx = {
        to: t.contractAddress!,
        data: ERC1155.encodeFunctionData('safeTransferFrom', [from, t.receiver, t.tokenId!, t.amount!, '0x']),
      };
      break;
  }
  const hash = await signer.sendUncheckedTransaction(tx);
  return { hash };
}

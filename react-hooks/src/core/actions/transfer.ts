import { getAddress, Interface } from 'ethers';
import { MoralisError, TransferValidationError, Web3NotEnabledError } from '../../errors/index.js';
import type { Config } from '../config.js';
import { walletRequest } from '../connectors/shared.js';
import { assertChain } from './wallet.js';

/** The four transfer kinds. */
export type TransferType = 'native' | 'erc20' | 'erc721' | 'erc1155';

/** An integer amount in the token's smallest unit (wei for native): bigint, safe integer or decimal string. */
export type Amount = bigint | number | string;

/** Input of `transfer`, by type (`type` defaults to "native"). */
export type TransferParameters = (
  | { type?: 'native'; receiver: string; amount: Amount }
  | { type: 'erc20'; contractAddress: string; receiver: string; amount: Amount }
  | { type: 'erc721'; contractAddress: string; receiver: string; tokenId: Amount }
  | { type: 'erc1155'; contractAddress: string; receiver: string; tokenId: Amount; amount: Amount }
) & {
  /** The chain the wallet must be on (chain guard); default: one of the config's `chains`, or any. */
  chainId?: number;
};

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
 * Sends a transfer from the connected EVM wallet (`eth_sendTransaction` on its EIP-1193 provider; the wallet fills
 * gas and nonce, signs and broadcasts); the calldata is encoded with ethers. Throws "Missing web3 instance, make
 * sure to enable web3 or authenticate first" when no EVM wallet is connected, validation errors before any wallet
 * request, ChainMismatchError when the wallet is on another chain than `chainId` (or the config's `chains`), and
 * UserRejectedRequestError on refusal.
 */
export async function transfer(config: Config, parameters: TransferParameters): Promise<TransferResult> {
  const { connector, account } = config.store.getState().wallet;
  if (!connector || connector.type !== 'evm' || !account) throw new Web3NotEnabledError();
  const t = validateTransfer(parameters);
  const to = address(t.type === 'native' ? t.receiver : t.contractAddress!, t.type === 'native' ? 'receiver' : 'contractAddress');
  const receiver = address(t.receiver, 'receiver');
  await assertChain(config, parameters.chainId);
  const from = account;
  if (!from) throw new MoralisError('Sender address not found');
  const tx: Record<string, string> = { from, to };
  switch (t.type) {
    case 'native':
      tx.value = '0x' + t.amount!.toString(16);
      break;
    case 'erc20':
      tx.data = ERC20.encodeFunctionData('transfer', [receiver, t.amount!]);
      break;
    case 'erc721':
      tx.data = ERC721.encodeFunctionData('safeTransferFrom', [from, receiver, t.tokenId!]);
      break;
    case 'erc1155':
      tx.data = ERC1155.encodeFunctionData('safeTransferFrom', [from, receiver, t.tokenId!, t.amount!, '0x']);
      break;
  }
  const hash = await walletRequest(await connector.getProvider(), 'eth_sendTransaction', [tx]);
  if (typeof hash !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(hash)) throw new MoralisError('Invalid transaction hash from the wallet');
  return { hash };
}

/** A 0x address (any case, checksum verified when mixed-case), lower-cased; "Invalid address" otherwise. */
function address(value: string, field: string): string {
  try {
    return getAddress(value).toLowerCase();
  } catch {
    throw new TransferValidationError('Invalid address', { details: field });
  }
}

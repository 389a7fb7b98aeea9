import { Interface, isAddress, type FunctionFragment, type InterfaceAbi } from 'ethers';
import {
  ChainMismatchError,
  ContractFunctionError,
  InvalidArgumentError,
  MoralisError,
  WaitForReceiptTimeoutError,
  Web3NotEnabledError,
} from '../../errors/index.js';
import type { Config } from '../config.js';
import { parseChainId, walletRequest } from '../connectors/shared.js';
import { refreshChainData } from './chainData.js';
import { assertChain, evmConnector } from './wallet.js';

/** Input of `readContract` / `writeContract`. */
export interface ContractCallParameters {
  /** The contract's 0x address. */
  address: string;
  /** The ABI: JSON fragments or human-readable signatures (`'function balanceOf(address) view returns (uint256)'`). */
  abi: InterfaceAbi;
  /** The function name, or its full signature when it is overloaded (`'safeTransferFrom(address,address,uint256)'`). */
  functionName: string;
  args?: readonly unknown[];
  /**
   * Reads: the chain to read from (its `rpcUrl` from the config's `chains`, else the wallet when it is on that
   * chain). Writes: the chain the wallet must be on (ChainMismatchError otherwise).
   */
  chainId?: number;
}

/** Input of `writeContract`. */
export interface WriteContractParameters extends ContractCallParameters {
  /** Wei sent with the call (payable functions). */
  value?: bigint;
}

/** A transaction receipt, normalised. */
export interface TransactionReceipt {
  transactionHash: string;
  blockNumber: number;
  status: 'success' | 'reverted';
  from: string;
  to: string | null;
  contractAddress: string | null;
  gasUsed: bigint;
  logs: { address: string; topics: string[]; data: string }[];
}

/** A JSON-RPC reader: the wallet's provider or a plain HTTP endpoint. */
interface Rpc {
  request(method: string, params: unknown[]): Promise<unknown>;
}

/**
 * Finds the function in the ABI with the spec's texts: "Function does not exist in abi" (no such name),
 * "Multiple function definitions found in the abi" (overloaded and called by name only: give the signature).
 */
export function contractFunction(abi: InterfaceAbi, functionName: string): { iface: Interface; fragment: FunctionFragment } {
  let iface: Interface;
  try {
    iface = new Interface(abi);
  } catch (cause) {
    throw new ContractFunctionError('Invalid abi', { cause });
  }
  if (typeof functionName !== 'string' || functionName === '') throw new ContractFunctionError('Function does not exist in abi');
  if (functionName.includes('(')) {
    const fragment = iface.fragments.find((f) => f.type === 'function' && (f as FunctionFragment).format() === functionName.replace(/\s+/g, ''));
    if (!fragment) throw new ContractFunctionError('Function does not exist in abi', { details: functionName });
    return { iface, fragment: fragment as FunctionFragment };
  }
  const matches = iface.fragments.filter((f): f is FunctionFragment => f.type === 'function' && (f as FunctionFragment).name === functionName);
  if (matches.length === 0) throw new ContractFunctionError('Function does not exist in abi', { details: functionName });
  if (matches.length > 1) throw new ContractFunctionError('Multiple function definitions found in the abi', { details: functionName });
  return { iface, fragment: matches[0]! };
}

function encode(p: ContractCallParameters) {
  if (typeof p?.address !== 'string' || !isAddress(p.address)) {
    throw new InvalidArgumentError('Invalid contract address', { details: String(p?.address) });
  }
  const { iface, fragment } = contractFunction(p.abi, p.functionName);
  let data: string;
  try {
    data = iface.encodeFunctionData(fragment, [...(p.args ?? [])]);
  } catch (cause) {
    throw new InvalidArgumentError(`Invalid arguments for ${fragment.format()}`, { cause });
  }
  return { iface, fragment, data };
}

function httpRpc(config: Config, url: string): Rpc {
  let id = 0;
  return {
    async request(method, params) {
      const doFetch = config.fetch ?? globalThis.fetch;
      const res = await doFetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      });
      const body = (await res.json().catch(() => null)) as { result?: unknown; error?: { code?: number; message?: string } } | null;
      if (!res.ok || !body || body.error) {
        throw new MoralisError(body?.error?.message ?? `JSON-RPC ${method} failed with HTTP ${res.status}`, { details: method });
      }
      return body.result;
    },
  };
}

/**
 * Where reads go: with `chainId`, that chain's `rpcUrl` (config `chains`), else the wallet if it is on that chain;
 * without, the connected EVM wallet, else the first configured chain with an `rpcUrl`.
 */
async function reader(config: Config, chainId?: number): Promise<Rpc> {
  const wallet = config.store.getState().wallet;
  const chain = chainId === undefined ? undefined : config.chains.find((c) => c.id === chainId);
  if (chain?.rpcUrl) return httpRpc(config, chain.rpcUrl);
  if (wallet.connector?.type === 'evm' && wallet.account) {
    const provider = await wallet.connector.getProvider();
    const rpc: Rpc = { request: (method, params) => walletRequest(provider, method, params) };
    if (chainId !== undefined) {
      const current = parseChainId(await rpc.request('eth_chainId', [])) ?? null;
      if (current !== chainId) throw new ChainMismatchError(chainId, current);
    }
    return rpc;
  }
  const fallback = chainId === undefined ? config.chains.find((c) => c.rpcUrl) : undefined;
  if (fallback?.rpcUrl) return httpRpc(config, fallback.rpcUrl);
  throw new Web3NotEnabledError({ details: 'no wallet connected and no rpcUrl configured for reads' });
}

/**
 * Calls a view function (`eth_call`) and decodes the answer with ethers: one output gives the value, several an
 * array. Input is checked first (ContractFunctionError, InvalidArgumentError).
 */
export async function readContract<T = unknown>(config: Config, parameters: ContractCallParameters): Promise<T> {
  const { iface, fragment, data } = encode(parameters);
  const rpc = await reader(config, parameters.chainId);
  const raw = await rpc.request('eth_call', [{ to: parameters.address, data }, 'latest']);
  if (typeof raw !== 'string') throw new MoralisError('Invalid eth_call answer', { details: fragment.format() });
  const result = iface.decodeFunctionResult(fragment, raw);
  return (fragment.outputs.length === 1 ? result[0] : result.toArray()) as T;
}

/**
 * Sends a contract call from the connected EVM wallet (`eth_sendTransaction`; the wallet fills gas and nonce) and
 * resolves with the hash, without waiting for a receipt. The chain guard runs first: the wallet must be on
 * `chainId` (or on one of the config's `chains`), else ChainMismatchError. Wallet refusals are typed
 * (UserRejectedRequestError).
 */
export async function writeContract(config: Config, parameters: WriteContractParameters): Promise<{ hash: string }> {
  const { data } = encode(parameters);
  if (parameters.value !== undefined && (typeof parameters.value !== 'bigint' || parameters.value < 0n)) {
    throw new InvalidArgumentError('value must be a non-negative bigint');
  }
  const { connector, account } = evmConnector(config);
  await assertChain(config, parameters.chainId);
  const tx: Record<string, string> = { from: account, to: parameters.address, data };
  if (parameters.value !== undefined) tx.value = '0x' + parameters.value.toString(16);
  const hash = await walletRequest(await connector.getProvider(), 'eth_sendTransaction', [tx]);
  if (typeof hash !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(hash)) throw new MoralisError('Invalid transaction hash from the wallet');
  return { hash };
}

/** Input of `waitForTransactionReceipt`. */
export interface WaitForReceiptParameters {
  hash: string;
  /** Blocks the receipt's block must have on top of it, itself included; default 1. */
  confirmations?: number;
  /** Give up after this many ms (WaitForReceiptTimeoutError); default 120000. */
  timeoutMs?: number;
  /** Poll every this many ms; default 1000. */
  pollingIntervalMs?: number;
  /** Read from this chain (see readContract). */
  chainId?: number;
  signal?: AbortSignal;
}

const hexNumber = (v: unknown) => (typeof v === 'string' && v.startsWith('0x') ? Number.parseInt(v, 16) : Number(v));

/** Polls `eth_getTransactionReceipt` until the transaction is mined with `confirmations`, then normalises it. */
export async function waitForTransactionReceipt(config: Config, parameters: WaitForReceiptParameters): Promise<TransactionReceipt> {
  const { hash } = parameters;
  if (typeof hash !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(hash)) throw new InvalidArgumentError('Invalid transaction hash');
  const confirmations = parameters.confirmations ?? 1;
  if (!Number.isSafeInteger(confirmations) || confirmations < 1) throw new InvalidArgumentError('confirmations must be an integer >= 1');
  const timeoutMs = parameters.timeoutMs ?? 120_000;
  const every = parameters.pollingIntervalMs ?? 1000;
  const rpc = await reader(config, parameters.chainId);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (parameters.signal?.aborted) throw parameters.signal.reason;
    const r = (await rpc.request('eth_getTransactionReceipt', [hash])) as Record<string, any> | null;
    if (r && r.blockNumber) {
      const blockNumber = hexNumber(r.blockNumber);
      // The node's latest block, even for one confirmation: a node can serve a receipt a moment before its block
      // is the latest one, and the balances read right after (refreshChainData) must see the transaction.
      const head = hexNumber(await rpc.request('eth_blockNumber', []));
      if (head - blockNumber + 1 >= confirmations) {
        // Mined (a reverted transaction still spends gas): balances and listings have changed.
        refreshChainData(config);
        return {
          transactionHash: String(r.transactionHash ?? hash),
          blockNumber,
          status: hexNumber(r.status) === 1 ? 'success' : 'reverted',
          from: String(r.from ?? '').toLowerCase(),
          to: r.to ? String(r.to).toLowerCase() : null,
          contractAddress: r.contractAddress ? String(r.contractAddress).toLowerCase() : null,
          gasUsed: BigInt(r.gasUsed ?? 0),
          logs: Array.isArray(r.logs) ? r.logs.map((l: any) => ({ address: String(l.address), topics: [...(l.topics ?? [])], data: String(l.data) })) : [],
        };
      }
    }
    if (Date.now() + every > deadline) throw new WaitForReceiptTimeoutError(hash, timeoutMs);
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(resolve, every);
      parameters.signal?.addEventListener('abort', () => (clearTimeout(t), reject(parameters.signal!.reason)), { once: true });
    });
  }
}

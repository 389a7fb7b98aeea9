import { hexlify, toUtf8Bytes } from 'ethers';
import { DataNotSignedError, toWalletError, UnrecognizedChainError } from '../../errors/index.js';
import type { ChainConfig, EIP1193Provider } from '../types.js';
import type { ConnectorEvent } from './types.js';

/** A set of listeners with an emit function. */
export function createEmitter() {
  const listeners = new Set<(event: ConnectorEvent) => void>();
  return {
    emit(event: ConnectorEvent) {
      for (const l of [...listeners]) l(event);
    },
    subscribe(listener: (event: ConnectorEvent) => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

/** Parses a chain id given as hex string, decimal string, number or bigint. */
export function parseChainId(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && value !== '') {
    const n = value.startsWith('0x') ? Number.parseInt(value, 16) : Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** Lower-cases and filters a list of EVM accounts returned by a wallet. */
export function normalizeAccounts(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.filter((a): a is string => typeof a === 'string' && a !== '').map((a) => a.toLowerCase());
}

/** `personal_sign` with [hexMessage, address]. */
export async function personalSign(provider: EIP1193Provider, message: string, address: string): Promise<string> {
  const hexMessage = hexlify(toUtf8Bytes(message));
  const signature = await walletRequest(provider, 'personal_sign', [hexMessage, address]);
  if (typeof signature !== 'string' || signature === '' || signature === '0x') throw new DataNotSignedError();
  return signature;
}

/**
 * Attaches EIP-1193 event listeners that forward to `emit`; returns the function that detaches them.
 */
export function attachEip1193(provider: EIP1193Provider, emit: (e: ConnectorEvent) => void): () => void {
  const onAccounts = (accounts: unknown) => emit({ type: 'accountsChanged', accounts: normalizeAccounts(accounts) });
  const onChain = (chainId: unknown) => {
    const id = parseChainId(chainId);
    if (id !== undefined) emit({ type: 'chainChanged', chainId: id });
  };
  const onDisconnect = () => emit({ type: 'disconnect' });
  provider.on?.('accountsChanged', onAccounts);
  provider.on?.('chainChanged', onChain);
  provider.on?.('disconnect', onDisconnect);
  return () => {
    provider.removeListener?.('accountsChanged', onAccounts);
    provider.removeListener?.('chainChanged', onChain);
    provider.removeListener?.('disconnect', onDisconnect);
  };
}

/** Reads a global such as `window.ethereum` without failing where `window` does not exist. */
export function readWindow<T>(pick: (w: any) => T | undefined): T | undefined {
  const w = (globalThis as { window?: unknown }).window;
  if (w === undefined || w === null) return undefined;
  try {
    return pick(w) ?? undefined;
  } catch {
    return undefined;
  }
}

/** A wallet request whose errors come back typed (see `toWalletError`). */
export async function walletRequest(
  provider: EIP1193Provider,
  method: string,
  params?: unknown[],
  context: { chainId?: number } = {},
): Promise<unknown> {
  try {
    return await provider.request(params === undefined ? { method } : { method, params });
  } catch (err) {
    throw toWalletError(err, context);
  }
}

/**
 * `wallet_switchEthereumChain`; on 4902 (unknown chain) with an `rpcUrl` in `chain`, `wallet_addEthereumChain`
 * then the switch again. Resolves with the chain id the wallet reports afterwards.
 */
export async function switchEip1193Chain(provider: EIP1193Provider, chainId: number, chain?: ChainConfig): Promise<number> {
  const hex = '0x' + chainId.toString(16);
  try {
    await walletRequest(provider, 'wallet_switchEthereumChain', [{ chainId: hex }], { chainId });
  } catch (err) {
    if (!(err instanceof UnrecognizedChainError) || !chain?.rpcUrl) throw err;
    await walletRequest(
      provider,
      'wallet_addEthereumChain',
      [
        {
          chainId: hex,
          chainName: chain.name,
          nativeCurrency: chain.nativeCurrency ?? { name: 'Ether', symbol: 'ETH', decimals: 18 },
          rpcUrls: [chain.rpcUrl],
          ...(chain.blockExplorerUrl ? { blockExplorerUrls: [chain.blockExplorerUrl] } : {}),
        },
      ],
      { chainId },
    );
    await walletRequest(provider, 'wallet_switchEthereumChain', [{ chainId: hex }], { chainId });
  }
  return parseChainId(await walletRequest(provider, 'eth_chainId').catch(() => hex)) ?? chainId;
}

import { ProviderNotFoundError } from '../../errors/index.js';
import type { EIP1193Provider } from '../types.js';
import {
  attachEip1193,
  createEmitter,
  normalizeAccounts,
  parseChainId,
  personalSign,
  readWindow,
  switchEip1193Chain,
  walletRequest,
} from './shared.js';
import type { ConnectOptions, ConnectResult, EvmConnector } from './types.js';

/** Options of `injected()`. */
export interface InjectedOptions {
  /** Returns the provider; default `window.ethereum`, read at connect time (never at import). */
  target?: () => EIP1193Provider | undefined;
  /** Connector id; default "injected". */
  id?: string;
  /** Connector name; default "Injected". */
  name?: string;
  /** Icon shown by connector pickers (EIP-6963 announces one). */
  icon?: string;
  /** EIP-6963 reverse-DNS id of the wallet. */
  rdns?: string;
}

/**
 * A connector for an injected EIP-1193 wallet (MetaMask and the like). `connect` first asks `eth_accounts` (no
 * pop-up); when that is rejected or gives no account it asks `eth_requestAccounts`.
 */
export function injected(options: InjectedOptions = {}): EvmConnector {
  const emitter = createEmitter();
  const getTarget = options.target ?? (() => readWindow<EIP1193Provider>((w) => w.ethereum));
  let detach: (() => void) | undefined;

  function provider(): EIP1193Provider {
    const p = getTarget();
    if (!p) throw new ProviderNotFoundError('Injected wallet not available', { details: 'window.ethereum is not defined' });
    return p;
  }

  return {
    id: options.id ?? 'injected',
    name: options.name ?? 'Injected',
    ...(options.icon ? { icon: options.icon } : {}),
    ...(options.rdns ? { rdns: options.rdns } : {}),
    type: 'evm',
    async getProvider() {
      return provider();
    },
    async connect(opts: ConnectOptions = {}): Promise<ConnectResult> {
      const p = provider();
      let accounts: string[] = [];
      try {
        accounts = normalizeAccounts(await p.request({ method: 'eth_accounts' }));
      } catch {
        accounts = [];
      }
      if (accounts.length === 0) {
        if (opts.onlyIfTrusted) return { accounts: [] };
        accounts = normalizeAccounts(await walletRequest(p, 'eth_requestAccounts'));
      }
      const chainId = parseChainId(await p.request({ method: 'eth_chainId' }).catch(() => undefined));
      detach?.();
      detach = attachEip1193(p, emitter.emit);
      return { accounts, chainId };
    },
    async disconnect() {
      detach?.();
      detach = undefined;
    },
    async signMessage(message, address) {
      return personalSign(provider(), message, address);
    },
    async switchChain(chainId, chain) {
      return switchEip1193Chain(provider(), chainId, chain);
    },
    subscribe: emitter.subscribe,
  };
}

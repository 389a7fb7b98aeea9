import {
  ConfigError,
  ProviderNotFoundError,
  toWalletError,
  UserRejectedRequestError,
  WalletConnectError,
  WalletConnectMissingError,
} from '../../errors/index.js';
import type { EIP1193Provider } from '../types.js';
import { attachEip1193, createEmitter, normalizeAccounts, parseChainId, personalSign, switchEip1193Chain } from './shared.js';
import type { ConnectOptions, ConnectResult, EvmConnector } from './types.js';

/** Options of `walletConnect()`. */
export interface WalletConnectOptions {
  /** WalletConnect Cloud project id; required. */
  projectId: string;
  /**
   * How long `connect` waits for the relay and the wallet before failing with "Could not connect via
   * WalletConnect, error in connecting to provider". Default 60000 ms. The WalletConnect provider's own `connect()`
   * never settles when the relay is unreachable, hence this limit.
   */
  timeoutMs?: number;
  /** Chains offered to the wallet; default [1]. */
  chains?: number[];
  /** Show the WalletConnect QR modal; default true. */
  showQrModal?: boolean;
  /** dApp metadata shown in the wallet. */
  metadata?: { name: string; description: string; url: string; icons: string[] };
  /** RPC URL per chain id, for read calls. */
  rpcMap?: Record<number, string>;
}

/** The parts of `@walletconnect/ethereum-provider`'s provider used here. */
interface WcProvider extends EIP1193Provider {
  session?: unknown;
  accounts?: string[];
  chainId?: number;
  connect(options?: unknown): Promise<unknown>;
  disconnect(): Promise<void>;
}

interface WcModule {
  EthereumProvider: { init(options: Record<string, unknown>): Promise<WcProvider> };
}

async function loadWalletConnect(): Promise<WcModule> {
  let mod: unknown;
  try {
    // Optional peer dependency, imported lazily so apps without WalletConnect never load it.
    // @ts-ignore -- the module may not be installed
    mod = await import('@walletconnect/ethereum-provider');
  } catch (cause) {
    throw new WalletConnectMissingError({ cause });
  }
  const m = mod as Partial<WcModule> & { default?: Partial<WcModule> };
  const EthereumProvider = m.EthereumProvider ?? m.default?.EthereumProvider;
  if (!EthereumProvider) throw new WalletConnectMissingError({ details: 'EthereumProvider export not found' });
  return { EthereumProvider };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new WalletConnectError({ details: `no answer within ${ms} ms` })), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err) => {
        clearTimeout(timer);
        // A refusal in the wallet (4001) stays a UserRejectedRequestError; anything else is a WalletConnectError.
        const typed = toWalletError(err);
        if (typed instanceof UserRejectedRequestError || err instanceof WalletConnectError) reject(typed);
        else reject(new WalletConnectError({ cause: err }));
      },
    );
  });
}

/**
 * A connector for WalletConnect v2. `@walletconnect/ethereum-provider` is an optional peer dependency loaded with a
 * dynamic import on first connect; when it is missing, `connect` fails with WalletConnectMissingError.
 */
export function walletConnect(options: WalletConnectOptions): EvmConnector {
  const emitter = createEmitter();
  const timeoutMs = options.timeoutMs ?? 60_000;
  const chains = options.chains && options.chains.length > 0 ? options.chains : [1];
  let provider: WcProvider | undefined;
  let detach: (() => void) | undefined;
  // One initialisation at a time: concurrent callers (React StrictMode runs effects twice, a reconnect racing a
  // click) share it, so EthereumProvider.init runs once. A failed one is forgotten, so a retry starts afresh.
  let initializing: Promise<WcProvider> | undefined;

  function init(): Promise<WcProvider> {
    if (provider) return Promise.resolve(provider);
    if (initializing) return initializing;
    const run = (async () => {
      const { EthereumProvider } = await loadWalletConnect();
      return withTimeout(
        EthereumProvider.init({
          projectId: options.projectId,
          optionalChains: chains,
          showQrModal: options.showQrModal ?? true,
          ...(options.metadata ? { metadata: options.metadata } : {}),
          ...(options.rpcMap ? { rpcMap: options.rpcMap } : {}),
        }),
        timeoutMs,
      );
    })();
    initializing = run;
    run.then(
      (p) => {
        if (initializing === run) provider = p;
      },
      () => {},
    ).finally(() => {
      if (initializing === run) initializing = undefined;
    });
    return run;
  }

  return {
    id: 'walletConnect',
    name: 'WalletConnect',
    type: 'evm',
    async getProvider() {
      if (!provider) throw new ProviderNotFoundError('WalletConnect provider not connected');
      return provider;
    },
    async connect(opts: ConnectOptions = {}): Promise<ConnectResult> {
      if (!options.projectId) throw new ConfigError('WalletConnect projectId is required');
      const p = await init();
      if (!p.session) {
        if (opts.onlyIfTrusted) return { accounts: [] };
        try {
          await withTimeout(p.connect(), timeoutMs);
        } catch (err) {
          // The session proposal may still be pending on the relay: drop the provider so a retry starts afresh.
          provider = undefined;
          p.disconnect().catch(() => {});
          throw err;
        }
      }
      let accounts = normalizeAccounts(p.accounts);
      if (accounts.length === 0) accounts = normalizeAccounts(await p.request({ method: 'eth_accounts' }));
      const chainId = parseChainId(p.chainId) ?? parseChainId(await p.request({ method: 'eth_chainId' }));
      detach?.();
      detach = attachEip1193(p, emitter.emit);
      return { accounts, chainId };
    },
    async disconnect() {
      detach?.();
      detach = undefined;
      const p = provider;
      provider = undefined;
      initializing = undefined;
      if (p) await p.disconnect().catch(() => {});
    },
    async signMessage(message, address) {
      if (!provider) throw new ProviderNotFoundError('WalletConnect provider not connected');
      return personalSign(provider, message, address);
    },
    async switchChain(chainId, chain) {
      if (!provider) throw new ProviderNotFoundError('WalletConnect provider not connected');
      return switchEip1193Chain(provider, chainId, chain);
    },
    subscribe: emitter.subscribe,
  };
}

import {
  AbortedError,
  ChainMismatchError,
  ConnectorNotFoundError,
  ConnectorUnsupportedError,
  InvalidArgumentError,
  NoAccountError,
  toWalletError,
  Web3NotEnabledError,
} from '../../errors/index.js';
import { EMPTY_WALLET, RECENT_CONNECTOR_KEY, type Config, type WalletState } from '../config.js';
import { parseChainId, walletRequest } from '../connectors/shared.js';
import type { Connector, ConnectorEvent, EvmConnector } from '../connectors/types.js';
import { applyWallet, hydrate } from './session.js';

/** Result of `connect`. */
export interface ConnectReturn {
  account: string;
  chainId: number | null;
  connector: Connector;
}

/** Parameters of `connect`. */
export interface ConnectParameters {
  /** The connector, or its id; default the config's first. */
  connector?: Connector | string;
  /** Only use an existing authorisation (no wallet pop-up). */
  onlyIfTrusted?: boolean;
}

/** The connector given (object or id), else the config's first; ConnectorNotFoundError when there is none. */
export function resolveConnector(config: Config, connector?: Connector | string): Connector {
  if (connector !== undefined && connector !== null && typeof connector !== 'string') return connector;
  const found = connector === undefined || connector === null ? config.connectors[0] : config.connectors.find((c) => c.id === connector);
  if (!found) {
    throw new ConnectorNotFoundError({ details: connector ? `no connector with id "${connector}"` : 'no connector configured' });
  }
  return found;
}

/**
 * Activates a wallet: connects `connector` (default: the config's first), sets the account (EVM lower-cased) and
 * chain id, and watches accountsChanged / chainChanged / disconnect. A signed-in session bound to another account
 * (or chain) ends in the same state change.
 *
 * - One connect at a time per connector: concurrent calls share it (two clicks, StrictMode) and the wallet is
 *   asked once. A full connect asked while a silent one (`onlyIfTrusted`) runs waits for it and prompts only if
 *   it found no account.
 * - The wallet connected before stays connected until the new one succeeds: a failed switch keeps it.
 * - A connect that finishes after a newer connect or a disconnect is dropped (AbortedError "superseded").
 *
 * Throws NoAccountError when the wallet gives no account, and typed wallet errors (UserRejectedRequestError, ...).
 */
export function connect(config: Config, parameters: ConnectParameters = {}): Promise<ConnectReturn> {
  hydrate(config);
  let connector: Connector;
  try {
    connector = resolveConnector(config, parameters.connector);
  } catch (err) {
    return Promise.reject(err);
  }
  const onlyIfTrusted = parameters.onlyIfTrusted === true;
  const inflight = config._internal.connecting.get(connector);
  if (inflight) {
    const shared = inflight.promise as Promise<ConnectReturn>;
    if (!inflight.onlyIfTrusted || onlyIfTrusted) return shared;
    return shared.catch(() => connect(config, { connector }));
  }
  const promise = run(config, connector, onlyIfTrusted);
  config._internal.connecting.set(connector, { onlyIfTrusted, promise });
  const forget = () => {
    if (config._internal.connecting.get(connector)?.promise === promise) config._internal.connecting.delete(connector);
  };
  promise.then(forget, forget);
  return promise;
}

async function run(config: Config, connector: Connector, onlyIfTrusted: boolean): Promise<ConnectReturn> {
  const gen = ++config._internal.walletGen;
  const status = config.store.getState().wallet.status;
  config.store.setState((s) => ({ wallet: { ...s.wallet, status: onlyIfTrusted ? 'reconnecting' : 'connecting' } }));
  // Back to the status before this connect, unless a newer connect or a disconnect took over meanwhile.
  const restore = () => {
    if (gen === config._internal.walletGen) config.store.setState((s) => ({ wallet: { ...s.wallet, status } }));
  };
  let result;
  try {
    result = await connector.connect({ onlyIfTrusted });
  } catch (err) {
    restore();
    throw toWalletError(err);
  }
  if (gen !== config._internal.walletGen) {
    if (config.store.getState().wallet.connector !== connector) await connector.disconnect().catch(() => {});
    throw new AbortedError('Connect', 'superseded', { details: `connector ${connector.id}` });
  }
  const account = result.accounts[0];
  if (!account) {
    restore();
    throw new NoAccountError({ details: `connector ${connector.id}` });
  }
  const previous = config.store.getState().wallet.connector;
  config._internal.unwatch?.();
  config._internal.unwatch = connector.subscribe((event) => onEvent(config, connector, event));
  const chainId = result.chainId ?? null;
  applyWallet(config, { connector, account, chainId, chainType: connector.type, status: 'connected' });
  config.storage.setItem(RECENT_CONNECTOR_KEY, connector.id);
  if (previous && previous !== connector) await previous.disconnect().catch(() => {});
  return { account, chainId, connector };
}

/**
 * Deactivates the wallet: closes the connector's provider and clears account, chain and connector. A connect in
 * flight is dropped. The signed-in session stays (sign out with `signOut`); connecting another account ends it.
 */
export async function disconnect(config: Config): Promise<void> {
  config._internal.walletGen++;
  const { connector } = config.store.getState().wallet;
  config._internal.unwatch?.();
  config._internal.unwatch = undefined;
  applyWallet(config, EMPTY_WALLET);
  config.storage.removeItem(RECENT_CONNECTOR_KEY);
  if (connector) await connector.disconnect();
}

/**
 * Reconnects the connector used last, silently (trusted connect only, no wallet pop-up). Resolves with null when
 * there is nothing to reconnect or the wallet does not trust the site any more; never throws. When the wallet now
 * reports another account than the stored session was signed with, the session ends.
 */
export async function reconnect(config: Config): Promise<ConnectReturn | null> {
  hydrate(config);
  const id = config.storage.getItem<string>(RECENT_CONNECTOR_KEY);
  const connector = config.connectors.find((c) => c.id === id);
  if (!connector || config.store.getState().wallet.connector) return null;
  try {
    return await connect(config, { connector, onlyIfTrusted: true });
  } catch {
    return null;
  }
}

function onEvent(config: Config, connector: Connector, event: ConnectorEvent) {
  const { wallet } = config.store.getState();
  if (wallet.connector !== connector) return;
  switch (event.type) {
    case 'accountsChanged': {
      const next = event.accounts[0];
      if (!next) {
        void disconnect(config);
        return;
      }
      if (next !== wallet.account) applyWallet(config, { ...wallet, account: next });
      return;
    }
    case 'chainChanged':
      if (event.chainId !== wallet.chainId) applyWallet(config, { ...wallet, chainId: event.chainId });
      return;
    case 'disconnect':
      void disconnect(config);
      return;
  }
}

/** The connected EVM connector; Web3NotEnabledError when no EVM wallet is connected. */
export function evmConnector(config: Config): { connector: EvmConnector; account: string; wallet: WalletState } {
  const wallet = config.store.getState().wallet;
  if (!wallet.connector || wallet.connector.type !== 'evm' || !wallet.account) throw new Web3NotEnabledError();
  return { connector: wallet.connector, account: wallet.account, wallet };
}

function checkChainId(chainId: unknown): number {
  if (typeof chainId !== 'number' || !Number.isSafeInteger(chainId) || chainId <= 0) {
    throw new InvalidArgumentError('chainId must be a positive integer', { details: String(chainId) });
  }
  return chainId;
}

/**
 * Asks the connected EVM wallet to switch to `chainId`, adding the chain first when the wallet does not know it and
 * the config's `chains` give its `rpcUrl`. Resolves with the wallet's new chain id. A session bound to the old
 * chain ends (see `bindSessionToChain`). Errors: Web3NotEnabledError (no EVM wallet), ConnectorUnsupportedError,
 * UserRejectedRequestError, UnrecognizedChainError (unknown chain and no rpcUrl), InvalidArgumentError.
 */
export async function switchChain(config: Config, parameters: { chainId: number }): Promise<number> {
  const chainId = checkChainId(parameters?.chainId);
  const { connector } = evmConnector(config);
  if (!connector.switchChain) throw new ConnectorUnsupportedError('The connector cannot switch chains', { details: connector.id });
  const next = await connector.switchChain(chainId, config.chains.find((c) => c.id === chainId));
  const w = config.store.getState().wallet;
  if (w.connector === connector && w.chainId !== next) applyWallet(config, { ...w, chainId: next });
  return next;
}

/**
 * The chain guard of writes: asks the wallet which chain it is on now (`eth_chainId`, not the last event) and
 * throws ChainMismatchError when it is not `chainId`, or, without `chainId`, not one of the config's `chains` (any
 * chain when `chains` is empty). Resolves with the wallet's chain id.
 */
export async function assertChain(config: Config, chainId?: number): Promise<number> {
  const expected = chainId === undefined ? undefined : checkChainId(chainId);
  const { connector } = evmConnector(config);
  const current = parseChainId(await walletRequest(await connector.getProvider(), 'eth_chainId')) ?? null;
  if (expected !== undefined && current !== expected) throw new ChainMismatchError(expected, current);
  if (expected === undefined && config.chains.length > 0 && !config.chains.some((c) => c.id === current)) {
    throw new ChainMismatchError(config.chains[0]!.id, current);
  }
  return current ?? 0;
}

import { ConfigError, NoAccountError } from '../../errors/index.js';
import { RECENT_CONNECTOR_KEY, type Config, type WalletState } from '../config.js';
import type { Connector, ConnectorEvent } from '../connectors/types.js';
import { endSession } from './session.js';

const EMPTY: WalletState = { connector: null, account: null, chainId: null, chainType: null };

/** Result of `connect`. */
export interface ConnectReturn {
  account: string;
  chainId: number | null;
  connector: Connector;
}

/**
 * Activates a wallet: connects `connector` (default: the config's first), sets the account (EVM lower-cased) and
 * chain id, and watches accountsChanged / chainChanged / disconnect. A switched account ends a sign-in session
 * made with the old account. Throws NoAccountError when the wallet gives no account.
 */
export async function connect(
  config: Config,
  parameters: { connector?: Connector; onlyIfTrusted?: boolean } = {},
): Promise<ConnectReturn> {
  const connector = parameters.connector ?? config.connectors[0];
  if (!connector) throw new ConfigError('No connector configured');
  const current = config.store.getState().wallet.connector;
  if (current && current !== connector) await disconnect(config);
  const result = await connector.connect({ onlyIfTrusted: parameters.onlyIfTrusted });
  const account = result.accounts[0];
  if (!account) throw new NoAccountError({ details: `connector ${connector.id}` });
  config._unwatch?.();
  config._unwatch = connector.subscribe((event) => onEvent(config, connector, event));
  const chainId = result.chainId ?? null;
  config.store.setState({ wallet: { connector, account, chainId, chainType: connector.type } });
  config.storage.setItem(RECENT_CONNECTOR_KEY, connector.id);
  return { account, chainId, connector };
}

/** Deactivates the wallet: closes the connector's provider and clears account, chain and connector. */
export async function disconnect(config: Config): Promise<void> {
  const { connector } = config.store.getState().wallet;
  config._unwatch?.();
  config._unwatch = undefined;
  config.store.setState({ wallet: EMPTY });
  config.storage.removeItem(RECENT_CONNECTOR_KEY);
  if (connector) await connector.disconnect();
}

/**
 * Reconnects the connector used last, silently (trusted connect only, no wallet pop-up). Resolves with null when
 * there is nothing to reconnect or the wallet does not trust the site any more; never throws.
 */
export async function reconnect(config: Config): Promise<ConnectReturn | null> {
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
  const { wallet, session } = config.store.getState();
  if (wallet.connector !== connector) return;
  switch (event.type) {
    case 'accountsChanged': {
      const next = event.accounts[0];
      if (!next) {
        void disconnect(config);
        return;
      }
      if (next === wallet.account) return;
      config.store.setState({ wallet: { ...wallet, account: next } });
      if (session && wallet.account && sessionAddress(session) === wallet.account) void endSession(config);
      return;
    }
    case 'chainChanged':
      config.store.setState({ wallet: { ...wallet, chainId: event.chainId } });
      return;
    case 'disconnect':
      void disconnect(config);
      return;
  }
}

function sessionAddress(session: { address?: string; user: { ethAddress?: string } }): string | undefined {
  return session.address ?? session.user.ethAddress?.toLowerCase();
}

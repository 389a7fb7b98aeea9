import { SECRET_IN_BROWSER_MESSAGE, SecretInBrowserError } from '../errors/index.js';
import { createEndpointClient, type EndpointClient, type FetchLike } from './client.js';
import { injected } from './connectors/injected.js';
import type { Connector } from './connectors/types.js';
import { createStorage, type Storage, type StorageLike } from './storage.js';
import { createStore, type Store } from './store.js';
import type { ChainType, Session, Status } from './types.js';

/** The `EventSource` constructor shape used by live queries; inject a fake in tests. */
export type EventSourceCtor = new (url: string, init?: { withCredentials?: boolean }) => EventSourceLike;

/** The parts of `EventSource` used by live queries. */
export interface EventSourceLike {
  readonly readyState: number;
  addEventListener(type: string, listener: (event: MessageEvent) => void): void;
  removeEventListener?(type: string, listener: (event: MessageEvent) => void): void;
  onopen: ((event: Event) => void) | null;
  onerror: ((event: Event) => void) | null;
  close(): void;
}

/** The connected wallet. All fields are null when no wallet is connected. */
export interface WalletState {
  /** The connector in use, or null. */
  connector: Connector | null;
  /** The current account: EVM lower-cased, Solana base58. */
  account: string | null;
  /** The chain id (EVM only). */
  chainId: number | null;
  /** 'evm' or 'solana', following the connector. */
  chainType: ChainType | null;
}

/** The whole state kept by a config. Replaced (never mutated) on change. */
export interface State {
  wallet: WalletState;
  /** The signed-in session, or null. */
  session: Session | null;
  /** Status of the last `/me` fetch. */
  sessionStatus: Status;
  sessionError: Error | null;
}

/** Parameters of `createConfig`. */
export interface CreateConfigParameters {
  /** Base URL of the Go endpoint; default "/auth" (same origin). */
  endpoint?: string;
  /** Wallet connectors; default `[injected()]`. The first one is used when an action is given none. */
  connectors?: Connector[];
  /** Where to keep the signed-in user between page loads; default `window.localStorage` when present, else nothing. */
  storage?: StorageLike;
  /** Prefix of storage keys; default "moralis". */
  storageKey?: string;
  /** The `fetch` used for endpoint calls; default `globalThis.fetch` at call time. */
  fetch?: FetchLike;
  /** The `EventSource` constructor for live queries; default `globalThis.EventSource` at call time. */
  EventSource?: EventSourceCtor;
  /** Refused: a master key must never reach the browser. */
  masterKey?: never;
  /** Refused: a secret must never reach the browser. */
  secret?: never;
  /** Refused: a secret must never reach the browser. */
  moralisSecret?: never;
}

/**
 * A config: the endpoint client, the connectors, the storage and the observable state. Create one per app with
 * `createConfig` and give it to `MoralisProvider`. Framework-free; every action in `core/actions` takes it first.
 */
export interface Config {
  readonly endpoint: string;
  readonly connectors: readonly Connector[];
  readonly client: EndpointClient;
  readonly storage: Storage;
  readonly store: Store<State>;
  readonly EventSource: EventSourceCtor | undefined;
  /** @internal Removes the listener on the current connector's events. */
  _unwatch?: (() => void) | undefined;
  /** @internal The in-flight `/me` request, shared by concurrent callers. */
  _meInFlight?: Promise<unknown> | undefined;
}

/** Storage key of the signed-in user (the session token is never stored). */
export const CURRENT_USER_KEY = 'currentUser';
/** Storage key of the id of the connector used last. */
export const RECENT_CONNECTOR_KEY = 'recentConnectorId';

const SECRET_OPTIONS = ['masterKey', 'secret', 'moralisSecret', 'masterKeySecret'];

/**
 * Creates a config. Throws SecretInBrowserError (and logs the same warning) when given a master key or a secret.
 * Touches no browser global unless one is needed (default storage): safe to call during SSR.
 */
export function createConfig(parameters: CreateConfigParameters = {}): Config {
  for (const key of SECRET_OPTIONS) {
    if ((parameters as Record<string, unknown>)[key] !== undefined) {
      console.warn(SECRET_IN_BROWSER_MESSAGE);
      throw new SecretInBrowserError({ details: `option "${key}" refused` });
    }
  }
  const endpoint = (parameters.endpoint ?? '/auth').replace(/\/+$/, '');
  const storage = createStorage({ storage: parameters.storage, key: parameters.storageKey });
  const user = storage.getItem<Session['user']>(CURRENT_USER_KEY);
  const store = createStore<State>({
    wallet: { connector: null, account: null, chainId: null, chainType: null },
    session: user && typeof user === 'object' && typeof user.objectId === 'string' ? { user } : null,
    sessionStatus: 'idle',
    sessionError: null,
  });
  return {
    endpoint,
    connectors: parameters.connectors ?? [injected()],
    client: createEndpointClient({ baseUrl: endpoint, fetch: parameters.fetch }),
    storage,
    store,
    EventSource: parameters.EventSource,
  };
}

import { ConfigError, SECRET_IN_BROWSER_MESSAGE, SecretInBrowserError } from '../errors/index.js';
import { sessionGone } from './actions/session.js';
import { createEndpointClient, type EndpointClient, type FetchLike } from './client.js';
import { injected } from './connectors/injected.js';
import type { Connector } from './connectors/types.js';
import { createStorage, type Storage, type StorageLike } from './storage.js';
import { createStore, type Store } from './store.js';
import type { BroadcastChannelCtor, Stamp, TabChannel } from './tabs.js';
import type { ChainConfig, ChainType, Session, SessionEndReason, Status, User, WalletStatus } from './types.js';

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

/**
 * The parts of the Web Locks API (`navigator.locks`) the config uses to run sign-ins and sign-outs one at a time
 * over the tabs of the app; inject one in tests.
 */
export interface LockManagerLike {
  request<T>(name: string, options: { signal?: AbortSignal }, callback: () => Promise<T>): Promise<T>;
}

/** The connected wallet. `connector`, `account`, `chainId` and `chainType` are null when none is connected. */
export interface WalletState {
  /** The connector in use, or null. */
  connector: Connector | null;
  /** The current account: EVM lower-cased, Solana base58. */
  account: string | null;
  /** The chain id (EVM only). */
  chainId: number | null;
  /** 'evm' or 'solana', following the connector. */
  chainType: ChainType | null;
  /** 'connecting' / 'reconnecting' while a connect runs (the previous wallet, if any, stays until it succeeds). */
  status: WalletStatus;
}

/** The whole state kept by a config. Replaced (never mutated) on change. */
export interface State {
  wallet: WalletState;
  /** The configured connectors followed by those discovered through EIP-6963. */
  connectors: readonly Connector[];
  /**
   * The signed-in session, or null. It is bound to the wallet account (and, by default, the chain) it was signed
   * with: when the connected wallet reports another one, the session ends in the same state change, so no render
   * ever shows one wallet with another wallet's user.
   */
  session: Session | null;
  /** Status of the last `/me` fetch. */
  sessionStatus: Status;
  sessionError: Error | null;
  /** Why the last session ended (null while signed in): lets the page ask the user to sign in again. */
  sessionEnded: SessionEndReason | null;
  /** Changes whenever a session starts or ends: the identity of the session for caches and live streams. */
  sessionId: number;
}

/** The serialisable part of the state a server renders with (see `cookieToInitialState`). */
export interface InitialState {
  session: Session | null;
}

/** Parameters of `createConfig`. */
export interface CreateConfigParameters {
  /** Base URL of the Go endpoint; default "/auth" (same origin). */
  endpoint?: string;
  /** Wallet connectors; default `[injected()]`. The first one is used when an action is given none. */
  connectors?: Connector[];
  /**
   * Where to keep the signed-in user and its wallet binding between page loads; default `window.localStorage` when
   * present, else nothing. Read on hydration (see `ssr`), never when the config is created. Use `cookieStorage()`
   * with `ssr: true` so the server can render the same state.
   */
  storage?: StorageLike;
  /** Prefix of storage keys; default "moralis". */
  storageKey?: string;
  /**
   * Server-side rendering: the stored state is read after the first client render (in an effect), so the
   * hydrated markup matches the server's; give the server's state as `initialState` to `MoralisProvider`.
   * Default false: the stored state is read during the first client render.
   */
  ssr?: boolean;
  /** Chains the app works with; writes on another chain fail with ChainMismatchError. Default: any chain. */
  chains?: ChainConfig[];
  /** Discover injected wallets announced through EIP-6963 (as extra connectors); default true. */
  multiInjectedProviderDiscovery?: boolean;
  /**
   * End the session when the wallet switches to another chain than the one it signed in on; default true. The
   * session always ends when the wallet switches account.
   */
  bindSessionToChain?: boolean;
  /** The `fetch` used for endpoint calls; default `globalThis.fetch` at call time. */
  fetch?: FetchLike;
  /**
   * How long, in all, an endpoint call answered 429 (over the endpoint's per-client rate limit, which every tab of
   * the browser shares) may wait for its `Retry-After` and be sent again before it fails with RateLimitError; see
   * `createEndpointClient`. Default RATE_LIMIT_WAIT_MS (10 s); 0: fail at once.
   */
  maxRateLimitWaitMs?: number;
  /** The `EventSource` constructor for live queries; default `globalThis.EventSource` at call time. */
  EventSource?: EventSourceCtor;
  /**
   * Keep every tab of the app on the one session the endpoint's cookie holds (the tabs share it): a sign-in in one
   * tab is shown in the others (unless their wallet is on another account or chain: they show none), a sign-out,
   * an account change or an answer saying the session is gone ends it in all, and a change of the user or of when
   * the session ends reaches them all. Every change is stamped and a tab applies only a newer one, so a late
   * message never undoes a newer state; sign-ins and sign-outs run one at a time over the tabs (`locks`). Default
   * true. Messages go over a `BroadcastChannel` named after `storageKey` and `endpoint`, else over `storage` events
   * of `localStorage`; the channel opens on hydration, never on the server.
   */
  syncTabs?: boolean;
  /** The `BroadcastChannel` constructor for `syncTabs`; default `globalThis.BroadcastChannel` at hydration. */
  BroadcastChannel?: BroadcastChannelCtor;
  /**
   * The Web Locks API that runs sign-ins and sign-outs one at a time over the tabs (see `syncTabs`); default
   * `navigator.locks` at call time; null: none (then two tabs signing in at the same moment may show the session
   * whose answer was read last rather than the one the cookie kept).
   */
  locks?: LockManagerLike | null;
  /** Refused: a master key must never reach the browser. */
  masterKey?: never;
  /** Refused: a secret must never reach the browser. */
  secret?: never;
  /** Refused: a secret must never reach the browser. */
  moralisSecret?: never;
  /** Refused: a chain-data API key stays on the server (the Go endpoint proxies chain data). */
  apiKey?: never;
}

/** @internal Mutable bookkeeping of a config (in-flight requests, generations). */
export interface ConfigInternal {
  /** A number unique to this config in the page (query keys of a shared QueryClient). */
  id: number;
  hydrated: boolean;
  /** The state a server renders and a client hydrates with. */
  serverState: State;
  initialApplied: boolean;
  unwatch: (() => void) | undefined;
  meInFlight: { sessionId: number; promise: Promise<User | null> } | undefined;
  connecting: Map<Connector, { onlyIfTrusted: boolean; promise: Promise<unknown> }>;
  /** Incremented by every connect and disconnect: a connect that finishes after a newer one is dropped. */
  walletGen: number;
  signingIn: { connector: Connector | undefined; promise: Promise<User> } | undefined;
  /** Incremented by every sign-out: a sign-in that finishes after one is undone. */
  signOutGen: number;
  discovery: { stop: () => void; users: number } | undefined;
  /** Settles when every sign-out sent to the endpoint so far has been answered. */
  pendingSignOut: Promise<void> | undefined;
  /** Incremented by refreshChainData (a receipt): chain data fetched before it may be stale in the endpoint's cache. */
  chainDataGen: number;
  /** The chainDataGen at which each chain-data query (by key) last got an answer; bounded. */
  chainDataSeen: Map<string, number>;
  /** Called by refreshChainData: the QueryClients that hold this config's chain data invalidate it. */
  chainDataListeners: Set<() => void>;
  /** The channel to the other tabs (opened on hydration with `syncTabs`), or undefined. */
  tabs: TabChannel | undefined;
  /** This tab's id in stamps (random). */
  tabId: string;
  /** The highest stamp time made or seen here (the hybrid logical clock of `nextStamp`). */
  clock: number;
  /** The identity (sign-in stamp) of the session shown, or null. */
  sid: Stamp | null;
  /** The stamp of the newest state this tab knows (made here or received): older messages are ignored. */
  version: Stamp | null;
  /** The timer of the session's end, its retry time after a failed check, and the check in flight. */
  endTimer: ReturnType<typeof setTimeout> | undefined;
  endRetryAt: number | undefined;
  endCheck: Promise<void> | undefined;
}

/**
 * A config: the endpoint client, the connectors, the storage and the observable state. Create one per app with
 * `createConfig` and give it to `MoralisProvider`. Framework-free; every action in `core/actions` takes it first.
 */
export interface Config {
  readonly endpoint: string;
  /** The configured connectors and those discovered (EIP-6963); same as `store.getState().connectors`. */
  readonly connectors: readonly Connector[];
  readonly client: EndpointClient;
  readonly storage: Storage;
  readonly store: Store<State>;
  readonly EventSource: EventSourceCtor | undefined;
  /** The `fetch` given to createConfig (endpoint calls and JSON-RPC reads), or undefined for the global one. */
  readonly fetch: FetchLike | undefined;
  readonly ssr: boolean;
  readonly chains: readonly ChainConfig[];
  readonly multiInjectedProviderDiscovery: boolean;
  readonly bindSessionToChain: boolean;
  readonly syncTabs: boolean;
  /** The `BroadcastChannel` given to createConfig, or undefined for the global one. */
  readonly BroadcastChannel: BroadcastChannelCtor | undefined;
  /** The lock manager given to createConfig (null: none), or undefined for `navigator.locks`. */
  readonly locks: LockManagerLike | null | undefined;
  /** @internal */
  readonly _internal: ConfigInternal;
}

/** Storage key of the signed-in user (the session token is never stored). */
export const CURRENT_USER_KEY = 'currentUser';
/** Storage key of the wallet a session is bound to: `{ objectId, address, chain, chainId }`. */
export const SESSION_BINDING_KEY = 'session';
/** Storage key of the id of the connector used last. */
export const RECENT_CONNECTOR_KEY = 'recentConnectorId';

let configCount = 0;

/** A random id for this tab's stamps (no browser global needed: `crypto` is in every supported runtime). */
function newTabId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  return c?.randomUUID ? c.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

const SECRET_OPTIONS = ['masterKey', 'secret', 'moralisSecret', 'masterKeySecret', 'apiKey', 'web3ApiKey'];

export const EMPTY_WALLET: WalletState = {
  connector: null,
  account: null,
  chainId: null,
  chainType: null,
  status: 'disconnected',
};

/**
 * Creates a config. Throws SecretInBrowserError (and logs the same warning) when given a master key, a secret or
 * an API key, and ConfigError for malformed options. Reads no storage and touches no browser global: safe during
 * SSR (the stored state is read on hydration, see `ssr`).
 */
export function createConfig(parameters: CreateConfigParameters = {}): Config {
  for (const key of SECRET_OPTIONS) {
    if ((parameters as Record<string, unknown>)[key] !== undefined) {
      console.warn(SECRET_IN_BROWSER_MESSAGE);
      throw new SecretInBrowserError({ details: `option "${key}" refused` });
    }
  }
  const chains = [...(parameters.chains ?? [])];
  for (const c of chains) {
    if (!c || !Number.isSafeInteger(c.id) || c.id <= 0) {
      throw new ConfigError('Invalid chain: id must be a positive integer', { details: JSON.stringify(c?.id) });
    }
  }
  const connectors = [...(parameters.connectors ?? [injected()])];
  const ids = new Set<string>();
  for (const c of connectors) {
    if (ids.has(c.id)) throw new ConfigError(`Duplicate connector id "${c.id}"`);
    ids.add(c.id);
  }
  const endpoint = (parameters.endpoint ?? '/auth').replace(/\/+$/, '');
  const initial: State = {
    wallet: EMPTY_WALLET,
    connectors,
    session: null,
    sessionStatus: 'idle',
    sessionError: null,
    sessionEnded: null,
    sessionId: 0,
  };
  const store = createStore<State>(initial);
  const internal: ConfigInternal = {
    id: ++configCount,
    hydrated: false,
    serverState: initial,
    initialApplied: false,
    unwatch: undefined,
    meInFlight: undefined,
    connecting: new Map(),
    walletGen: 0,
    signingIn: undefined,
    signOutGen: 0,
    discovery: undefined,
    pendingSignOut: undefined,
    chainDataGen: 0,
    chainDataSeen: new Map(),
    chainDataListeners: new Set(),
    tabs: undefined,
    tabId: newTabId(),
    clock: 0,
    sid: null,
    version: null,
    endTimer: undefined,
    endRetryAt: undefined,
    endCheck: undefined,
  };
  const config: Config = {
    endpoint,
    get connectors() {
      return store.getState().connectors;
    },
    client: createEndpointClient({
      baseUrl: endpoint,
      fetch: parameters.fetch,
      maxRateLimitWaitMs: parameters.maxRateLimitWaitMs,
      // An answer saying the session is gone ends the session the request was sent with, at once.
      watchSession: () => {
        const sessionId = store.getState().sessionId;
        return (route) => sessionGone(config, sessionId, route);
      },
    }),
    storage: createStorage({ storage: parameters.storage, key: parameters.storageKey }),
    store,
    EventSource: parameters.EventSource,
    fetch: parameters.fetch,
    ssr: parameters.ssr ?? false,
    chains,
    multiInjectedProviderDiscovery: parameters.multiInjectedProviderDiscovery ?? true,
    bindSessionToChain: parameters.bindSessionToChain ?? true,
    syncTabs: parameters.syncTabs ?? true,
    BroadcastChannel: parameters.BroadcastChannel,
    locks: parameters.locks,
    _internal: internal,
  };
  return config;
}

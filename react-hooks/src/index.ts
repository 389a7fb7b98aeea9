// @moralis-go/react-hooks: wallet sign-in (Ethereum, Solana) against a moralis-go endpoint, transfers, live queries.
// Importing this module touches no browser global: everything reads `window` lazily, when called.

export * from './errors/index.js';

export { createConfig, CURRENT_USER_KEY, RECENT_CONNECTOR_KEY } from './core/config.js';
export type { Config, CreateConfigParameters, State, WalletState, EventSourceCtor, EventSourceLike } from './core/config.js';
export { createEndpointClient, CONNECTION_FAILED } from './core/client.js';
export type { EndpointClient, FetchLike, SigningMessage, SignedMessage, SignInResult } from './core/client.js';
export { createStorage, memoryStorage, noopStorage } from './core/storage.js';
export type { Storage, StorageLike } from './core/storage.js';
export { createStore } from './core/store.js';
export type { Store } from './core/store.js';
export type { ChainType, EIP1193Provider, Session, SolanaProvider, Status, User } from './core/types.js';

export { injected } from './core/connectors/injected.js';
export type { InjectedOptions } from './core/connectors/injected.js';
export { walletConnect } from './core/connectors/walletConnect.js';
export type { WalletConnectOptions } from './core/connectors/walletConnect.js';
export { phantom } from './core/connectors/phantom.js';
export type { PhantomOptions } from './core/connectors/phantom.js';
export type {
  Connector,
  ConnectorEvent,
  ConnectOptions,
  ConnectResult,
  EvmConnector,
  SolanaConnector,
} from './core/connectors/types.js';

export { connect, disconnect, reconnect } from './core/actions/wallet.js';
export type { ConnectReturn } from './core/actions/wallet.js';
export { signIn, signOut, fetchUser, linkSolana, unlinkSolana } from './core/actions/auth.js';
export type { SignInParameters } from './core/actions/auth.js';
export { transfer, validateTransfer } from './core/actions/transfer.js';
export type { Amount, TransferParameters, TransferResult, TransferType, ValidTransfer } from './core/actions/transfer.js';
export { watchLiveQuery, liveQueryUrl, LIVE_EVENTS } from './core/actions/liveQuery.js';
export type { LiveEventName, LiveObject, LiveQueryParameters, LiveQueryState } from './core/actions/liveQuery.js';

export { MoralisProvider, MoralisContext } from './hooks/context.js';
export type { MoralisProviderProps } from './hooks/context.js';
export { useConfig } from './hooks/useConfig.js';
export type { ConfigParameter } from './hooks/useConfig.js';
export { useWallet } from './hooks/useWallet.js';
export { useSignIn } from './hooks/useSignIn.js';
export { useSignOut } from './hooks/useSignOut.js';
export { useSession, useUser } from './hooks/useSession.js';
export type { UseSessionParameters } from './hooks/useSession.js';
export { useSolanaAccounts } from './hooks/useSolanaAccounts.js';
export { useTransfer } from './hooks/useTransfer.js';
export { useLiveQuery } from './hooks/useLiveQuery.js';
export type { UseLiveQueryParameters } from './hooks/useLiveQuery.js';
export type { MutationResult } from './hooks/useMutation.js';

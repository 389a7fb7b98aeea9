// @moralis-go/react-hooks: wallet sign-in (Ethereum, Solana) against a moralis-go endpoint, transfers, live queries.
// Importing this module touches no browser global: everything reads `window` lazily, when called.

export * from './errors/index.js';

export { createConfig, CURRENT_USER_KEY, RECENT_CONNECTOR_KEY, SESSION_BINDING_KEY } from './core/config.js';
export type {
  Config,
  CreateConfigParameters,
  EventSourceCtor,
  EventSourceLike,
  InitialState,
  LockManagerLike,
  State,
  WalletState,
} from './core/config.js';
export {
  createEndpointClient,
  CONNECTION_FAILED,
  CHAIN_DATA_KINDS,
  INVALID_SESSION_TOKEN,
  isSessionGone,
  PARSE_CODES,
  RATE_LIMIT_WAIT_MS,
} from './core/client.js';
export type {
  BackendQuery,
  BackendQueryResult,
  ChainDataKind,
  ChainDataQuery,
  EndpointClient,
  EndpointClientOptions,
  ErrorResponse,
  FetchLike,
  FunctionRequest,
  FunctionResponse,
  MessageResponse,
  QueryRequest,
  QueryResponse,
  GetMessageOptions,
  RequestOptions,
  SigningMessage,
  SolanaSignInInput,
  SignedMessage,
  SignedRequest,
  SessionEnd,
  SignInResponse,
  SignInResult,
  UnlinkRequest,
  UserResponse,
  UserResult,
} from './core/client.js';
export type { PublicUser } from './core/wire.gen.js';
export { cookieStorage, createStorage, memoryStorage, noopStorage, parseCookie } from './core/storage.js';
export type { CookieStorageOptions, Storage, StorageLike } from './core/storage.js';
export { createStore } from './core/store.js';
export { compareStamps } from './core/tabs.js';
export type { BroadcastChannelCtor, SharedSession, Stamp, TabMessage } from './core/tabs.js';
export type { Store } from './core/store.js';
export type {
  ChainConfig,
  ChainType,
  EIP1193Provider,
  Session,
  SessionEndReason,
  SolanaProvider,
  Status,
  User,
  WalletStatus,
} from './core/types.js';

export { injected } from './core/connectors/injected.js';
export type { InjectedOptions } from './core/connectors/injected.js';
export { walletConnect } from './core/connectors/walletConnect.js';
export type { WalletConnectOptions } from './core/connectors/walletConnect.js';
export { phantom } from './core/connectors/phantom.js';
export type { PhantomOptions } from './core/connectors/phantom.js';
export { watchInjectedProviders } from './core/connectors/eip6963.js';
export type { EIP6963ProviderDetail, EIP6963ProviderInfo } from './core/connectors/eip6963.js';
export type {
  Connector,
  ConnectorEvent,
  ConnectOptions,
  ConnectResult,
  EvmConnector,
  SolanaConnector,
  SolanaSignInResult,
} from './core/connectors/types.js';

export { assertChain, connect, disconnect, reconnect, resolveConnector, switchChain } from './core/actions/wallet.js';
export type { ConnectParameters, ConnectReturn } from './core/actions/wallet.js';
export {
  applyInitialState,
  cookieToInitialState,
  END_RETRY_MS,
  hydrate,
  sessionMismatch,
  TAB_LOCK_WAIT_MS,
} from './core/actions/session.js';
export { signIn, signOut, fetchUser, linkSolana, unlinkSolana } from './core/actions/auth.js';
export type { SignInParameters } from './core/actions/auth.js';
export { transfer, validateTransfer } from './core/actions/transfer.js';
export type { Amount, TransferParameters, TransferResult, TransferType, ValidTransfer } from './core/actions/transfer.js';
export { watchLiveQuery, liveQueryUrl, LIVE_EVENTS } from './core/actions/liveQuery.js';
export { contractFunction, readContract, waitForTransactionReceipt, writeContract } from './core/actions/contract.js';
export { refreshChainData } from './core/actions/chainData.js';
export type {
  ContractCallParameters,
  TransactionReceipt,
  WaitForReceiptParameters,
  WriteContractParameters,
} from './core/actions/contract.js';
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
export { useSignTypedData } from './hooks/useSignTypedData.js';
export { hashTypedData, InvalidTypedDataError, signTypedData, verifyTypedData } from './core/actions/typedData.js';
export type { SignTypedDataParameters, SignTypedDataResult, TypedDataDefinition, VerifyTypedDataParameters } from './core/actions/typedData.js';
export { useLiveQuery } from './hooks/useLiveQuery.js';
export type { UseLiveQueryParameters } from './hooks/useLiveQuery.js';
export type { MutationResult } from './hooks/useMutation.js';
export { useSwitchChain, useChainGuard } from './hooks/useSwitchChain.js';
export { useReadContract, useWriteContract, useWaitForTransactionReceipt } from './hooks/useContract.js';
export type { UseReadContractParameters, UseWaitForTransactionReceiptParameters } from './hooks/useContract.js';
export {
  useCloudFunction,
  useMoralisQuery,
  useNativeBalance,
  useNFTs,
  useTokenBalances,
  useTransactions,
} from './hooks/useData.js';
export type {
  Page,
  TokenBalance,
  UseChainDataParameters,
  UseCloudFunctionParameters,
  UseMoralisQueryParameters,
} from './hooks/useData.js';
export { hashQueryKey, shouldRetry, useMoralisQueryClient } from './hooks/query.js';
export type { QueryParameter } from './hooks/query.js';

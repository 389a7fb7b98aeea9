import type { ChainConfig, ChainType, EIP1193Provider, SolanaProvider } from '../types.js';

/** Events a connector reports after `connect`: the wallet switched account or chain, or went away. */
export type ConnectorEvent =
  | { type: 'accountsChanged'; accounts: string[] }
  | { type: 'chainChanged'; chainId: number }
  | { type: 'disconnect' };

/** What `connect` gives back. EVM accounts are lower-cased; Solana addresses are base58 (case matters). */
export interface ConnectResult {
  accounts: string[];
  chainId?: number;
}

/** Options of `Connector.connect`. */
export interface ConnectOptions {
  /** Only use an existing authorisation (no wallet pop-up); resolves with no account when there is none. */
  onlyIfTrusted?: boolean;
}

interface BaseConnector {
  /** Stable id, e.g. "injected", "walletConnect", "phantom". */
  readonly id: string;
  /** Human-readable name. */
  readonly name: string;
  /** Icon (a data: URI) announced by the wallet through EIP-6963, if any. */
  readonly icon?: string;
  /** Reverse-DNS id announced through EIP-6963 (e.g. "io.metamask"), if any. */
  readonly rdns?: string;
  /**
   * Connects: a trusted connect first (no pop-up), then, unless `onlyIfTrusted`, a full connect.
   * Starts reporting events to subscribers.
   */
  connect(options?: ConnectOptions): Promise<ConnectResult>;
  /** Closes the provider where it can be closed and stops reporting events. Never throws. */
  disconnect(): Promise<void>;
  /** Signs a UTF-8 message with `address`; EVM gives 0x hex, Solana base58. Throws "Data not signed" when empty. */
  signMessage(message: string, address: string): Promise<string>;
  /** Registers a listener of wallet events; returns the function that removes it. */
  subscribe(listener: (event: ConnectorEvent) => void): () => void;
}

/** A connector to an Ethereum-type wallet through an EIP-1193 provider. */
export interface EvmConnector extends BaseConnector {
  readonly type: 'evm';
  /** The EIP-1193 provider; rejects when the wallet is missing. */
  getProvider(): Promise<EIP1193Provider>;
  /**
   * Asks the wallet to switch to `chainId` (`wallet_switchEthereumChain`); when the wallet does not know it (4902)
   * and `chain` has an `rpcUrl`, adds it first (`wallet_addEthereumChain`). Resolves with the new chain id.
   */
  switchChain?(chainId: number, chain?: ChainConfig): Promise<number>;
}

/** What a wallet's `solana:signIn` gave back: the signing address (base58), the signed text and its signature (base58). */
export interface SolanaSignInResult {
  address: string;
  message: string;
  signature: string;
}

/** A connector to a Solana wallet (Phantom). */
export interface SolanaConnector extends BaseConnector {
  readonly type: 'solana';
  getProvider(): Promise<SolanaProvider>;
  /**
   * Signs in with the wallet's wallet-standard `solana:signIn` feature: the wallet writes the Sign-In with Solana
   * message from `input` and signs it. Resolves with null when the wallet does not offer the feature (then
   * `signMessage` is used). Throws "Data not signed" when the wallet gives no signature.
   */
  signIn?(input: Record<string, unknown>): Promise<SolanaSignInResult | null>;
}

/** Any connector. Factories: `injected()`, `walletConnect({...})`, `phantom()`. */
export type Connector = EvmConnector | SolanaConnector;

export type { ChainType };

import type { PublicUser } from './wire.gen.js';

/**
 * A user as the hooks hold it: the endpoint's `PublicUser` (Go: `authserver.PublicUser`, generated into
 * wire.gen.ts), whose fields may be missing in a session restored from storage; unknown fields are kept.
 */
export interface User extends Partial<PublicUser> {
  objectId: string;
  username: string;
  [field: string]: unknown;
}

/**
 * A signed-in session. The session is the server's HttpOnly cookie, out of reach of page scripts; `sessionToken`
 * is set (in memory only) only when the endpoint returns one in the body, which it does not by default.
 */
export interface Session {
  user: User;
  sessionToken?: string;
  /** The chain of the wallet that signed in (absent when the session was restored from storage or `/me`). */
  chain?: ChainType;
  /** The address that signed in (EVM lower-cased). */
  address?: string;
  /** The EVM chain id the wallet was on when it signed in (absent for Solana or when unknown). */
  chainId?: number;
  /**
   * When the session ends unless it is used before then (`Date.now()` scale, from the endpoint's answer and its
   * clock; absent when the endpoint does not say). Requests may move it later (the endpoint's sessions roll): at
   * this time the hooks ask the endpoint (`/me`), and show signed-out if it has ended.
   */
  expiresAt?: number;
  /** When the session ends however it is used (`Date.now()` scale): the hooks show signed-out then. */
  maxExpiresAt?: number;
}

/** Why the last session ended; null while signed in or when nobody signed in yet. */
export type SessionEndReason = 'signedOut' | 'accountChanged' | 'chainChanged' | 'expired';

/** State of the wallet connection. */
export type WalletStatus = 'disconnected' | 'connecting' | 'reconnecting' | 'connected';

/** A chain the app works with: used by `switchChain` (to add it to the wallet), the chain guard and reads. */
export interface ChainConfig {
  /** EIP-155 chain id, e.g. 1, 137, 1337. */
  id: number;
  /** Human-readable name, e.g. "Ethereum". */
  name: string;
  /** JSON-RPC URL: offered to the wallet by `wallet_addEthereumChain`, and used for reads with no wallet. */
  rpcUrl?: string;
  /** Native currency; default { name: 'Ether', symbol: 'ETH', decimals: 18 }. */
  nativeCurrency?: { name: string; symbol: string; decimals: number };
  /** Block explorer base URL. */
  blockExplorerUrl?: string;
}

/** Which kind of chain a wallet or a sign-in is for. */
export type ChainType = 'evm' | 'solana';

/** Status of an asynchronous operation, as every hook reports it. */
export type Status = 'idle' | 'pending' | 'success' | 'error';

/** A minimal EIP-1193 provider (MetaMask's `window.ethereum`, WalletConnect's provider, ...). */
export interface EIP1193Provider {
  request(args: { method: string; params?: unknown[] | object }): Promise<unknown>;
  on?(event: string, listener: (...args: any[]) => void): unknown;
  removeListener?(event: string, listener: (...args: any[]) => void): unknown;
}

/** The parts of Phantom's `window.solana` the package uses. */
export interface SolanaProvider {
  isPhantom?: boolean;
  publicKey?: { toString(): string } | null;
  connect(options?: { onlyIfTrusted?: boolean }): Promise<unknown>;
  disconnect?(): Promise<void>;
  signMessage(message: Uint8Array, display?: 'utf8' | 'hex'): Promise<{ signature: Uint8Array } | Uint8Array>;
  /**
   * Wallet-standard features, when the provider is (or carries) a wallet-standard wallet: `solana:signIn` is used
   * for sign-in when present.
   */
  features?: {
    'solana:signIn'?: {
      signIn(...inputs: Record<string, unknown>[]): Promise<
        { account: { publicKey: Uint8Array; address?: string }; signedMessage: Uint8Array; signature: Uint8Array }[]
      >;
    };
  };
  on?(event: string, listener: (...args: any[]) => void): unknown;
  removeListener?(event: string, listener: (...args: any[]) => void): unknown;
  off?(event: string, listener: (...args: any[]) => void): unknown;
}

/**
 * Error classes of the package. Each has a literal `name` (so `err.name === 'EndpointError'` works across bundles),
 * a short `message`, optional `details` (extra, human-readable context that never holds a key, token or signature)
 * and the standard `cause`.
 */

/** Options shared by every error of the package. */
export interface MoralisErrorOptions {
  /** Extra context for logs; never contains secrets or signatures. */
  details?: string;
  /** The underlying error, if any. */
  cause?: unknown;
}

/** Base class of every error thrown by the package. */
export class MoralisError extends Error {
  override name: string = 'MoralisError';
  /** Extra context for logs; never contains secrets or signatures. */
  readonly details: string | undefined;

  constructor(message: string, options: MoralisErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.details = options.details;
  }
}

/** Exact warning text used when a master key or a secret is passed to the browser package. */
export const SECRET_IN_BROWSER_MESSAGE = 'Moralis: It is not recommended to use your master key or secret in the browser';

/** Thrown by `createConfig` when it is given a master key or a secret: those must stay on the server. */
export class SecretInBrowserError extends MoralisError {
  override name = 'SecretInBrowserError' as const;
  constructor(options: MoralisErrorOptions = {}) {
    super(SECRET_IN_BROWSER_MESSAGE, options);
  }
}

/** Thrown by `useConfig()` (and every hook) when no `MoralisProvider` is above it and no `config` was passed. */
export class ConfigNotFoundError extends MoralisError {
  override name = 'ConfigNotFoundError' as const;
  constructor(options: MoralisErrorOptions = {}) {
    super('`useConfig` must be used within `MoralisProvider` or be given a `config`', options);
  }
}

/** Thrown for invalid options passed to `createConfig` or a connector factory. */
export class ConfigError extends MoralisError {
  override name = 'ConfigError' as const;
}

/**
 * A non-2xx answer (or no answer) from the Go endpoint. `code` is the server's numeric code (Parse error codes),
 * `status` the HTTP status (0 when the request never got an answer).
 */
export class EndpointError extends MoralisError {
  override name: string = 'EndpointError';
  readonly code: number;
  readonly status: number;
  constructor(message: string, code: number, status: number, options: MoralisErrorOptions = {}) {
    super(message, options);
    this.code = code;
    this.status = status;
  }
}

/** The wallet (injected provider or Phantom) is not present in the page. */
export class ProviderNotFoundError extends MoralisError {
  override name = 'ProviderNotFoundError' as const;
}

/** The wallet returned no account after connecting. */
export class NoAccountError extends MoralisError {
  override name = 'NoAccountError' as const;
  constructor(options: MoralisErrorOptions = {}) {
    super('Cannot authenticate, no account returned from provider', options);
  }
}

/** The wallet returned an empty signature. */
export class DataNotSignedError extends MoralisError {
  override name = 'DataNotSignedError' as const;
  constructor(options: MoralisErrorOptions = {}) {
    super('Data not signed', options);
  }
}

/** A Solana wallet gave no address, or an address to unlink is not linked to the user. */
export class AddressNotFoundError extends MoralisError {
  override name = 'AddressNotFoundError' as const;
  constructor(options: MoralisErrorOptions = {}) {
    super('Address not found', options);
  }
}

/** An action needs a signed-in user and there is none. */
export class UserNotFoundError extends MoralisError {
  override name = 'UserNotFoundError' as const;
  constructor(options: MoralisErrorOptions = {}) {
    super('Could not get user', options);
  }
}

/** An action needs a connected Ethereum wallet and there is none. */
export class Web3NotEnabledError extends MoralisError {
  override name = 'Web3NotEnabledError' as const;
  constructor(options: MoralisErrorOptions = {}) {
    super('Missing web3 instance, make sure to enable web3 or authenticate first', options);
  }
}

/** The WalletConnect relay did not answer in time, or the connection failed. */
export class WalletConnectError extends MoralisError {
  override name = 'WalletConnectError' as const;
  constructor(options: MoralisErrorOptions = {}) {
    super('Could not connect via WalletConnect, error in connecting to provider', options);
  }
}

/** `@walletconnect/ethereum-provider` (an optional peer dependency) is not installed. */
export class WalletConnectMissingError extends MoralisError {
  override name = 'WalletConnectMissingError' as const;
  constructor(options: MoralisErrorOptions = {}) {
    super(
      'Cannot find WalletConnect dependency: install it with `npm install @walletconnect/ethereum-provider`',
      options,
    );
  }
}

/** Transfer input failed validation; the message is the exact text of the Go SDK ("receiver is required", ...). */
export class TransferValidationError extends MoralisError {
  override name = 'TransferValidationError' as const;
}

// ---------------------------------------------------------------------------------------------------------------
// Wallet (EIP-1193) errors. `toWalletError` turns whatever a wallet or ethers threw into one of these, so an app can
// tell a user's refusal (4001) from a network failure with `instanceof` or `err.name`.

/** Standard EIP-1193 / EIP-1474 provider error codes. */
export const ProviderErrorCode = {
  UserRejectedRequest: 4001,
  Unauthorized: 4100,
  UnsupportedMethod: 4200,
  Disconnected: 4900,
  ChainDisconnected: 4901,
  UnrecognizedChain: 4902,
  ResourceUnavailable: -32002,
} as const;

/** Any error a wallet answered with a numeric EIP-1193 / JSON-RPC `code`. */
export class ProviderRpcError extends MoralisError {
  override name: string = 'ProviderRpcError';
  /** The wallet's numeric code (e.g. 4001, 4902, -32603). */
  readonly code: number;
  constructor(message: string, code: number, options: MoralisErrorOptions = {}) {
    super(message, options);
    this.code = code;
  }
}

/** The user refused the request in the wallet (EIP-1193 code 4001). */
export class UserRejectedRequestError extends ProviderRpcError {
  override name = 'UserRejectedRequestError' as const;
  constructor(options: MoralisErrorOptions = {}) {
    super('User rejected the request', ProviderErrorCode.UserRejectedRequest, options);
  }
}

/** The site is not authorised for this account or method (EIP-1193 code 4100). */
export class UnauthorizedProviderError extends ProviderRpcError {
  override name = 'UnauthorizedProviderError' as const;
  constructor(options: MoralisErrorOptions = {}) {
    super('The requested account or method has not been authorized by the user', ProviderErrorCode.Unauthorized, options);
  }
}

/** The wallet does not know the chain asked for (EIP-3326 code 4902); add it first (`chains` in createConfig). */
export class UnrecognizedChainError extends ProviderRpcError {
  override name = 'UnrecognizedChainError' as const;
  readonly chainId: number | undefined;
  constructor(chainId: number | undefined, options: MoralisErrorOptions = {}) {
    super(`Unrecognized chain${chainId === undefined ? '' : ` ${chainId}`}`, ProviderErrorCode.UnrecognizedChain, options);
    this.chainId = chainId;
  }
}

/** The wallet is disconnected from every chain or from the requested one (codes 4900, 4901). */
export class ProviderDisconnectedError extends ProviderRpcError {
  override name = 'ProviderDisconnectedError' as const;
  constructor(code: number, options: MoralisErrorOptions = {}) {
    super('The wallet is disconnected', code, options);
  }
}

/** The wallet already shows a request of this kind (code -32002): the user must answer it first. */
export class ResourceUnavailableError extends ProviderRpcError {
  override name = 'ResourceUnavailableError' as const;
  constructor(options: MoralisErrorOptions = {}) {
    super('A request of this kind is already pending in the wallet', ProviderErrorCode.ResourceUnavailable, options);
  }
}

/** The wallet is on another chain than the action needs. Switch with `switchChain` / `useSwitchChain`. */
export class ChainMismatchError extends MoralisError {
  override name = 'ChainMismatchError' as const;
  /** The chain the action needs (one of them, when several are allowed). */
  readonly expectedChainId: number;
  /** The chain the wallet is on, or null when unknown. */
  readonly currentChainId: number | null;
  constructor(expectedChainId: number, currentChainId: number | null, options: MoralisErrorOptions = {}) {
    super(`Chain mismatch: expected chain ${expectedChainId}, the wallet is on chain ${currentChainId ?? 'unknown'}`, options);
    this.expectedChainId = expectedChainId;
    this.currentChainId = currentChainId;
  }
}

/** No connector with that id is configured (or discovered through EIP-6963), or the config has no connector. */
export class ConnectorNotFoundError extends MoralisError {
  override name = 'ConnectorNotFoundError' as const;
  constructor(options: MoralisErrorOptions = {}) {
    super('Connector not found', options);
  }
}

/** The connector cannot do what was asked (e.g. `switchChain` on Phantom). */
export class ConnectorUnsupportedError extends MoralisError {
  override name = 'ConnectorUnsupportedError' as const;
}

/** Why an action was aborted (see AbortedError). */
export type AbortReason = 'accountChanged' | 'chainChanged' | 'disconnected' | 'signedOut' | 'superseded';

const ABORT_TEXT: Record<AbortReason, string> = {
  accountChanged: 'the wallet switched account',
  chainChanged: 'the wallet switched chain',
  disconnected: 'the wallet disconnected',
  signedOut: 'the session was signed out',
  superseded: 'a newer request replaced it',
};

/**
 * An action stopped because the world changed under it: the wallet switched account or chain during a sign-in,
 * the user signed out meanwhile, or a newer request replaced it. Nothing of the aborted action is kept (a session
 * the endpoint opened meanwhile is signed out again).
 */
export class AbortedError extends MoralisError {
  override name = 'AbortedError' as const;
  readonly reason: AbortReason;
  constructor(action: string, reason: AbortReason, options: MoralisErrorOptions = {}) {
    super(`${action} aborted: ${ABORT_TEXT[reason]}`, options);
    this.reason = reason;
  }
}

/** Contract call input refused before any request ("Function does not exist in abi", ...). */
export class ContractFunctionError extends MoralisError {
  override name = 'ContractFunctionError' as const;
}

/** Parse-style codes the endpoint answers with (see EndpointError.code). */
export const ParseErrorCode = {
  InternalServerError: 1,
  ConnectionFailed: 100,
  ObjectNotFound: 101,
  InvalidQuery: 102,
  InvalidClassName: 103,
  InvalidJSON: 107,
  OperationForbidden: 119,
  ScriptFailed: 141,
  ValidationError: 142,
  RequestLimitExceeded: 155,
  InvalidSessionToken: 209,
} as const;

/** The endpoint answered 429: over a per-client or per-session rate limit. `retryAfter` in seconds when known. */
export class RateLimitError extends EndpointError {
  override name = 'RateLimitError' as const;
  readonly retryAfter: number | undefined;
  constructor(message: string, code: number, retryAfter: number | undefined, options: MoralisErrorOptions = {}) {
    super(message, code, 429, options);
    this.retryAfter = retryAfter;
  }
}

function numericCode(e: unknown): number | undefined {
  if (!e || typeof e !== 'object') return undefined;
  const c = (e as { code?: unknown }).code;
  return typeof c === 'number' && Number.isInteger(c) ? c : undefined;
}

/**
 * Finds the wallet's EIP-1193 error inside what was thrown: the error itself, ethers v6 wrappers
 * (`ACTION_REJECTED`, `info.error`, `error`), or a `cause` chain (at most 5 levels).
 */
function findRpcError(err: unknown): { code: number; message: string; ethersRejected: boolean } | undefined {
  let e: unknown = err;
  let ethersRejected = false;
  for (let depth = 0; depth < 5 && e && typeof e === 'object'; depth++) {
    const o = e as { code?: unknown; message?: unknown; info?: { error?: unknown }; error?: unknown; cause?: unknown };
    if (o.code === 'ACTION_REJECTED') ethersRejected = true;
    const code = numericCode(o);
    if (code !== undefined) return { code, message: typeof o.message === 'string' ? o.message : '', ethersRejected };
    e = o.info?.error ?? o.error ?? o.cause;
  }
  return ethersRejected ? { code: ProviderErrorCode.UserRejectedRequest, message: '', ethersRejected } : undefined;
}

/**
 * Turns an error thrown by a wallet (directly or through ethers) into a typed error: 4001 (or ethers'
 * ACTION_REJECTED) gives UserRejectedRequestError, 4100 UnauthorizedProviderError, 4900/4901
 * ProviderDisconnectedError, 4902 UnrecognizedChainError, -32002 ResourceUnavailableError, any other numeric
 * code ProviderRpcError. Errors of this package and errors without a code are returned unchanged.
 */
export function toWalletError(err: unknown, context: { chainId?: number } = {}): unknown {
  if (err instanceof MoralisError) return err;
  const rpc = findRpcError(err);
  if (!rpc) return err;
  const options = { cause: err };
  switch (rpc.code) {
    case ProviderErrorCode.UserRejectedRequest:
      return new UserRejectedRequestError(options);
    case ProviderErrorCode.Unauthorized:
      return new UnauthorizedProviderError(options);
    case ProviderErrorCode.Disconnected:
    case ProviderErrorCode.ChainDisconnected:
      return new ProviderDisconnectedError(rpc.code, options);
    case ProviderErrorCode.UnrecognizedChain:
      return new UnrecognizedChainError(context.chainId, options);
    case ProviderErrorCode.ResourceUnavailable:
      return new ResourceUnavailableError(options);
    default:
      return new ProviderRpcError(rpc.message || `Wallet error ${rpc.code}`, rpc.code, options);
  }
}

/** An argument of an action is malformed (e.g. a chain id that is not a positive integer). */
export class InvalidArgumentError extends MoralisError {
  override name = 'InvalidArgumentError' as const;
}

/** `waitForTransactionReceipt` gave up: no receipt (with the confirmations asked) within the timeout. */
export class WaitForReceiptTimeoutError extends MoralisError {
  override name = 'WaitForReceiptTimeoutError' as const;
  readonly hash: string;
  constructor(hash: string, timeoutMs: number, options: MoralisErrorOptions = {}) {
    super(`Timed out after ${timeoutMs} ms waiting for the receipt of ${hash}`, options);
    this.hash = hash;
  }
}

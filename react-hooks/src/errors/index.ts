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
  override name = 'EndpointError' as const;
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

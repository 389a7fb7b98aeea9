import { EndpointError, RateLimitError } from '../errors/index.js';
import type { ChainType, User } from './types.js';

/** The `fetch` signature the client needs; inject your own in tests. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** Answer of `GET {base}/message`. */
export interface SigningMessage {
  message: string;
  nonce: string;
  expiresAt: string;
  /**
   * With `style: 'siws'` (Solana) and an endpoint that has a domain: the fields of the Sign-In with Solana message,
   * the input a wallet's `solana:signIn` feature takes to write exactly `message`.
   */
  signInInput?: SolanaSignInInput;
}

/** The wallet-standard `SolanaSignInInput` (every field a string; the endpoint fills them all). */
export interface SolanaSignInInput {
  domain?: string;
  address?: string;
  statement?: string;
  uri?: string;
  version?: string;
  chainId?: string;
  nonce?: string;
  issuedAt?: string;
  expirationTime?: string;
  notBefore?: string;
  requestId?: string;
  resources?: string[];
}

/** Options of `getMessage`. */
export interface GetMessageOptions extends RequestOptions {
  /** `'siws'` asks for a Sign-In with Solana message (chain "solana"); default the endpoint's message style. */
  style?: 'siws';
}

/** Body of `POST {base}/signin` and `POST {base}/link`. */
export interface SignedMessage {
  chain: ChainType;
  address: string;
  message: string;
  /** EVM: 0x-prefixed hex; Solana: base58. */
  signature: string;
}

/**
 * Answer of `POST {base}/signin`. The session travels in the server's HttpOnly cookie; `sessionToken` is present
 * only when the Go endpoint was configured to put it in the body (`TokenInBody`, for non-browser clients).
 */
export interface SignInResult {
  user: User;
  sessionToken?: string;
}

/** Per-request options. */
export interface RequestOptions {
  /** Aborts the request; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Asks the endpoint for an answer newer than the one it cached (`Cache-Control: no-cache`), as the chain-data
   * hooks do once after a transaction's receipt. GET only; each such request costs the endpoint an upstream call
   * and counts against its rate limit.
   */
  fresh?: boolean;
}

/** Body of `POST {base}/data/query`: a backend query run with the user's session. */
export interface BackendQuery {
  className: string;
  where?: Record<string, unknown>;
  /** Comma-separated keys, "-" for descending, e.g. "-createdAt". */
  order?: string;
  limit?: number;
  skip?: number;
  keys?: string[];
  include?: string[];
  count?: boolean;
}

/** Answer of `POST {base}/data/query`. */
export interface BackendQueryResult<T = Record<string, unknown>> {
  results: T[];
  count?: number;
}

/** Chain-data routes of the endpoint: `GET {base}/data/chain/{kind}`. */
export type ChainDataKind = 'balance' | 'tokens' | 'nfts' | 'transactions';

/** Query of a chain-data route. `address` defaults (on the server) to the signed-in user's address. */
export interface ChainDataQuery {
  /** Chain id (number) or the API's chain name/hex id; default the server's. */
  chain?: number | string;
  address?: string;
  cursor?: string;
  limit?: number;
}

/**
 * Client of the Go endpoint (see README, "Endpoint contract"). Every request uses `credentials: 'include'` so the
 * server's HttpOnly session cookie travels with it. Stateless and safe to share.
 */
export interface EndpointClient {
  /** The base URL, without a trailing slash (e.g. "/auth"). */
  readonly baseUrl: string;
  getMessage(address: string, chain: ChainType, options?: GetMessageOptions): Promise<SigningMessage>;
  signIn(body: SignedMessage, options?: RequestOptions): Promise<SignInResult>;
  link(body: SignedMessage, options?: RequestOptions): Promise<{ user: User }>;
  unlink(body: { chain: ChainType; address: string }, options?: RequestOptions): Promise<{ user: User }>;
  signOut(options?: RequestOptions): Promise<void>;
  /** The signed-in user, or null when the endpoint answers 401. */
  me(options?: RequestOptions): Promise<User | null>;
  /** `POST {base}/data/query`: a backend query with the user's session. */
  query<T = Record<string, unknown>>(body: BackendQuery, options?: RequestOptions): Promise<BackendQueryResult<T>>;
  /** `POST {base}/data/function`: a cloud function with the user's session; resolves with its `result`. */
  callFunction<T = unknown>(name: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<T>;
  /** `GET {base}/data/chain/{kind}`: chain data the endpoint fetches with its own API key. */
  chainData<T = unknown>(kind: ChainDataKind, query?: ChainDataQuery, options?: RequestOptions): Promise<T>;
}

/** Parse's "connection failed" code, used when the request got no answer at all. */
export const CONNECTION_FAILED = 100;

/**
 * Creates an endpoint client. `fetch` defaults to `globalThis.fetch`, looked up at call time (so importing the
 * package never touches browser globals).
 */
export function createEndpointClient(options: { baseUrl: string; fetch?: FetchLike }): EndpointClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');

  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown, ro: RequestOptions = {}): Promise<T> {
    const doFetch = options.fetch ?? (globalThis.fetch as FetchLike | undefined);
    if (!doFetch) throw new EndpointError('XMLHttpRequest failed: fetch is not available', CONNECTION_FAILED, 0);
    const init: RequestInit = {
      method,
      credentials: 'include',
      headers: ro.fresh && method === 'GET' ? { Accept: 'application/json', 'Cache-Control': 'no-cache' } : { Accept: 'application/json' },
    };
    if (ro.signal) init.signal = ro.signal;
    if (method === 'POST') {
      init.headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
      init.body = JSON.stringify(body ?? {});
    }
    let res: Response;
    let text: string;
    try {
      res = await doFetch(baseUrl + path, init);
      text = await res.text();
    } catch (cause) {
      // An abort is not a network failure: it rejects with the signal's reason, as fetch does.
      if (ro.signal?.aborted) throw ro.signal.reason ?? cause;
      const detail = cause instanceof Error ? cause.message : String(cause);
      throw new EndpointError(`XMLHttpRequest failed: ${detail}`, CONNECTION_FAILED, 0, { cause });
    }
    const where = `${method} ${path.split('?')[0]}`;
    if (!res.ok) {
      let parsed: { code?: unknown; error?: unknown } | undefined;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (parsed && typeof parsed.error === 'string') {
        const code = typeof parsed.code === 'number' ? parsed.code : res.status;
        if (res.status === 429) {
          const after = Number(res.headers.get('Retry-After'));
          throw new RateLimitError(parsed.error, code, Number.isFinite(after) && after >= 0 ? after : undefined, {
            details: where,
          });
        }
        throw new EndpointError(parsed.error, code, res.status, { details: where });
      }
      throw new EndpointError(`Received an error with invalid JSON from Parse: ${text}`, res.status, res.status, {
        details: where,
      });
    }
    if (text === '') return {} as T;
    try {
      return JSON.parse(text) as T;
    } catch (cause) {
      throw new EndpointError(`Received an error with invalid JSON from Parse: ${text}`, res.status, res.status, {
        details: where,
        cause,
      });
    }
  }

  const qs = (q: Record<string, string | number | undefined>) => {
    const parts = Object.entries(q)
      .filter(([, v]) => v !== undefined && v !== '')
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
    return parts.length ? `?${parts.join('&')}` : '';
  };

  return {
    baseUrl,
    getMessage: (address, chain, ro) => call('GET', `/message${qs({ address, chain, style: ro?.style })}`, undefined, ro),
    signIn: (body, ro) => call('POST', '/signin', body, ro),
    link: (body, ro) => call('POST', '/link', body, ro),
    unlink: (body, ro) => call('POST', '/unlink', body, ro),
    signOut: async (ro) => {
      await call('POST', '/signout', {}, ro);
    },
    me: async (ro) => {
      try {
        const res = await call<{ user: User }>('GET', '/me', undefined, ro);
        return res.user ?? null;
      } catch (err) {
        if (err instanceof EndpointError && err.status === 401) return null;
        throw err;
      }
    },
    query: (body, ro) => call('POST', '/data/query', body, ro),
    callFunction: async (name, params, ro) => {
      const res = await call<{ result?: unknown }>('POST', '/data/function', { name, params: params ?? {} }, ro);
      return res.result as never;
    },
    chainData: (kind, q = {}, ro) =>
      call('GET', `/data/chain/${kind}${qs({ chain: q.chain, address: q.address, cursor: q.cursor, limit: q.limit })}`, undefined, ro),
  };
}

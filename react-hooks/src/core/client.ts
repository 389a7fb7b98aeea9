import { EndpointError, RateLimitError } from '../errors/index.js';
import type { ChainType, User } from './types.js';
import type {
  ChainDataKind,
  ChainDataQuery,
  MessageResponse,
  QueryRequest,
  QueryResponse,
  SessionEnd,
  SignedRequest,
  SignInResponse,
} from './wire.gen.js';

/** The `fetch` signature the client needs; inject your own in tests. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export type {
  ChainDataKind,
  ChainDataQuery,
  ErrorResponse,
  FunctionRequest,
  FunctionResponse,
  MessageResponse,
  QueryRequest,
  QueryResponse,
  SessionEnd,
  SignedRequest,
  SignInResponse,
  UnlinkRequest,
  UserResponse,
} from './wire.gen.js';
export { CHAIN_DATA_KINDS, PARSE_CODES } from './wire.gen.js';

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

// The former names of the wire types, from before they were generated from the Go endpoint's.
/** @deprecated Use `MessageResponse`. */
export type SigningMessage = MessageResponse;
/** @deprecated Use `SignedRequest` (Go: `authserver.SignedRequest`). */
export type SignedMessage = SignedRequest;
/**
 * Answer of `POST {base}/signin` as the hooks hold it (`SignInResponse` with the hooks' `User`). The session
 * travels in the server's HttpOnly cookie; `sessionToken` is present only when the Go endpoint was configured to
 * put it in the body (`TokenInBody`, for non-browser clients).
 */
export type SignInResult = Omit<SignInResponse, 'user'> & { user: User };
/**
 * Answer of `GET {base}/me`, `POST {base}/link` and `POST {base}/unlink` as the hooks hold it (`UserResponse` with
 * the hooks' `User`): the user, and when the session ends when the endpoint says so.
 */
export type UserResult = { user: User; session?: SessionEnd };
/** @deprecated Use `QueryRequest`. */
export type BackendQuery = QueryRequest;
/** @deprecated Use `QueryResponse`. */
export type BackendQueryResult<T = Record<string, unknown>> = QueryResponse<T>;

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

/**
 * Client of the Go endpoint (see README, "Endpoint contract"). Every request uses `credentials: 'include'` so the
 * server's HttpOnly session cookie travels with it. Stateless and safe to share.
 */
export interface EndpointClient {
  /** The base URL, without a trailing slash (e.g. "/auth"). */
  readonly baseUrl: string;
  getMessage(address: string, chain: ChainType, options?: GetMessageOptions): Promise<MessageResponse>;
  signIn(body: SignedRequest, options?: RequestOptions): Promise<SignInResult>;
  link(body: SignedRequest, options?: RequestOptions): Promise<UserResult>;
  unlink(body: { chain: ChainType; address: string }, options?: RequestOptions): Promise<UserResult>;
  signOut(options?: RequestOptions): Promise<void>;
  /** The signed-in user, or null when the endpoint answers 401. */
  me(options?: RequestOptions): Promise<User | null>;
  /** `GET {base}/me` whole: the signed-in user and when the session ends (`session`), or null on a 401. */
  getSession(options?: RequestOptions): Promise<UserResult | null>;
  /** `POST {base}/data/query`: a backend query with the user's session. */
  query<T = Record<string, unknown>>(body: QueryRequest, options?: RequestOptions): Promise<QueryResponse<T>>;
  /** `POST {base}/data/function`: a cloud function with the user's session; resolves with its `result`. */
  callFunction<T = unknown>(name: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<T>;
  /** `GET {base}/data/chain/{kind}`: chain data the endpoint fetches with its own API key. */
  chainData<T = unknown>(kind: ChainDataKind, query?: ChainDataQuery, options?: RequestOptions): Promise<T>;
}

/** Parse's "connection failed" code, used when the request got no answer at all. */
export const CONNECTION_FAILED = 100;

/** Parse's "Invalid session token" code: the session the request carried is unknown, revoked or expired. */
export const INVALID_SESSION_TOKEN = 209;

/**
 * Parse's "Object not found" code: the endpoint's refusal of a signature, a nonce or a message (HTTP 401 on
 * `/signin`; 404 on the routes of a signed-in user, such as a `/link` with an expired nonce or an `/unlink` of an
 * address the user does not have, whose session stands).
 */
export const OBJECT_NOT_FOUND = 101;

/**
 * Whether an error answer of the endpoint says the session is gone: Parse code 209 from any route, or HTTP 401 from
 * a route that needs a session (all but `/message` and `/signin`, whose 401 refuses a signature or a message, not a
 * session). The endpoint answers 401 only for a missing, ended or refused session; a 401 with code 101 (as endpoints
 * before that rule answered a refused `/link` or `/unlink`) says nothing about the session and does not end it. A
 * bare 401 (no code, e.g. from a proxy) still ends it. `path` is the route, e.g. "/data/query" (a query string is
 * ignored).
 */
export function isSessionGone(path: string, status: number, code: number): boolean {
  if (code === INVALID_SESSION_TOKEN) return true;
  const route = path.split('?')[0];
  return status === 401 && code !== OBJECT_NOT_FOUND && route !== '/message' && route !== '/signin';
}

/** Options of `createEndpointClient`. */
export interface EndpointClientOptions {
  baseUrl: string;
  fetch?: FetchLike;
  /**
   * Called as each request is sent; the function it returns, if any, is called with the route (e.g. "/data/query")
   * before the request rejects when the answer says the session is gone (`isSessionGone`). A config uses it to end, at once, the session the request
   * was sent with (and not one that started while it was in flight).
   */
  watchSession?: () => ((route: string) => void) | undefined;
  /**
   * How long, in all, a request answered 429 may wait to be sent again: each wait is the answer's `Retry-After`
   * (at least 1 s, plus up to 250 ms so that tabs do not retry together), and a request whose next wait would go
   * past it rejects with the RateLimitError. The endpoint refuses over-limit requests before doing anything, so
   * sending one again is safe, also a POST. Default RATE_LIMIT_WAIT_MS; 0: never wait.
   */
  maxRateLimitWaitMs?: number;
}

/** The default of `EndpointClientOptions.maxRateLimitWaitMs`: 10 s. */
export const RATE_LIMIT_WAIT_MS = 10_000;

/** Resolves after ms, or rejects with the signal's reason when it aborts first. */
function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Creates an endpoint client. `fetch` defaults to `globalThis.fetch`, looked up at call time (so importing the
 * package never touches browser globals).
 */
export function createEndpointClient(options: EndpointClientOptions): EndpointClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const maxWait = options.maxRateLimitWaitMs ?? RATE_LIMIT_WAIT_MS;

  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown, ro: RequestOptions = {}): Promise<T> {
    const gone = options.watchSession?.();
    let waited = 0;
    for (;;) {
      try {
        return await send<T>(method, path, body, ro);
      } catch (err) {
        // Over the endpoint's rate limit: refused before anything was done, so it is sent again once allowed.
        if (err instanceof RateLimitError) {
          const ms = Math.max(1, err.retryAfter ?? 1) * 1000 + Math.floor(Math.random() * 250);
          if (waited + ms <= maxWait) {
            waited += ms;
            await wait(ms, ro.signal);
            continue;
          }
        }
        if (gone && err instanceof EndpointError && isSessionGone(path, err.status, err.code)) gone(path.split('?')[0]);
        throw err;
      }
    }
  }

  async function send<T>(method: 'GET' | 'POST', path: string, body?: unknown, ro: RequestOptions = {}): Promise<T> {
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

  async function getSession(ro?: RequestOptions): Promise<UserResult | null> {
    try {
      const res = await call<UserResult>('GET', '/me', undefined, ro);
      return res.user ? res : null;
    } catch (err) {
      if (err instanceof EndpointError && err.status === 401) return null;
      throw err;
    }
  }

  return {
    baseUrl,
    getMessage: (address, chain, ro) => call('GET', `/message${qs({ address, chain, style: ro?.style })}`, undefined, ro),
    signIn: (body, ro) => call('POST', '/signin', body, ro),
    link: (body, ro) => call('POST', '/link', body, ro),
    unlink: (body, ro) => call('POST', '/unlink', body, ro),
    signOut: async (ro) => {
      await call('POST', '/signout', {}, ro);
    },
    me: async (ro) => (await getSession(ro))?.user ?? null,
    getSession,
    query: (body, ro) => call('POST', '/data/query', body, ro),
    callFunction: async (name, params, ro) => {
      const res = await call<{ result?: unknown }>('POST', '/data/function', { name, params: params ?? {} }, ro);
      return res.result as never;
    },
    chainData: (kind, q = {}, ro) =>
      call('GET', `/data/chain/${kind}${qs({ chain: q.chain, address: q.address, cursor: q.cursor, limit: q.limit })}`, undefined, ro),
  };
}

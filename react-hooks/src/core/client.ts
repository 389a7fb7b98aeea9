import { EndpointError } from '../errors/index.js';
import type { ChainType, User } from './types.js';

/** The `fetch` signature the client needs; inject your own in tests. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** Answer of `GET {base}/message`. */
export interface SigningMessage {
  message: string;
  nonce: string;
  expiresAt: string;
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

/**
 * Client of the Go endpoint (see README, "Endpoint contract"). Every request uses `credentials: 'include'` so the
 * server's HttpOnly session cookie travels with it. Stateless and safe to share.
 */
export interface EndpointClient {
  /** The base URL, without a trailing slash (e.g. "/auth"). */
  readonly baseUrl: string;
  getMessage(address: string, chain: ChainType): Promise<SigningMessage>;
  signIn(body: SignedMessage): Promise<SignInResult>;
  link(body: SignedMessage): Promise<{ user: User }>;
  unlink(body: { chain: ChainType; address: string }): Promise<{ user: User }>;
  signOut(): Promise<void>;
  /** The signed-in user, or null when the endpoint answers 401. */
  me(): Promise<User | null>;
}

/** Parse's "connection failed" code, used when the request got no answer at all. */
export const CONNECTION_FAILED = 100;

/**
 * Creates an endpoint client. `fetch` defaults to `globalThis.fetch`, looked up at call time (so importing the
 * package never touches browser globals).
 */
export function createEndpointClient(options: { baseUrl: string; fetch?: FetchLike }): EndpointClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');

  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const doFetch = options.fetch ?? (globalThis.fetch as FetchLike | undefined);
    if (!doFetch) throw new EndpointError('XMLHttpRequest failed: fetch is not available', CONNECTION_FAILED, 0);
    const init: RequestInit = { method, credentials: 'include', headers: { Accept: 'application/json' } };
    if (method === 'POST') {
      init.headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
      init.body = JSON.stringify(body ?? {});
    }
    let res: Response;
    try {
      res = await doFetch(baseUrl + path, init);
    } catch (cause) {
      const detail = cause instanceof Error ? cause.message : String(cause);
      throw new EndpointError(`XMLHttpRequest failed: ${detail}`, CONNECTION_FAILED, 0, { cause });
    }
    const text = await res.text();
    if (!res.ok) {
      let parsed: { code?: unknown; error?: unknown } | undefined;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (parsed && typeof parsed.error === 'string') {
        const code = typeof parsed.code === 'number' ? parsed.code : res.status;
        throw new EndpointError(parsed.error, code, res.status, { details: `${method} ${path}` });
      }
      throw new EndpointError(`Received an error with invalid JSON from Parse: ${text}`, res.status, res.status, {
        details: `${method} ${path}`,
      });
    }
    if (text === '') return {} as T;
    try {
      return JSON.parse(text) as T;
    } catch (cause) {
      throw new EndpointError(`Received an error with invalid JSON from Parse: ${text}`, res.status, res.status, {
        details: `${method} ${path}`,
        cause,
      });
    }
  }

  return {
    baseUrl,
    getMessage: (address, chain) =>
      call('GET', `/message?address=${encodeURIComponent(address)}&chain=${encodeURIComponent(chain)}`),
    signIn: (body) => call('POST', '/signin', body),
    link: (body) => call('POST', '/link', body),
    unlink: (body) => call('POST', '/unlink', body),
    signOut: async () => {
      await call('POST', '/signout', {});
    },
    me: async () => {
      try {
        const res = await call<{ user: User }>('GET', '/me');
        return res.user ?? null;
      } catch (err) {
        if (err instanceof EndpointError && err.status === 401) return null;
        throw err;
      }
    },
  };
}

import { ed25519 } from '@noble/curves/ed25519.js';
import bs58 from 'bs58';
import { verifyMessage } from 'ethers';
import type { User } from '../../src/index.js';

export interface Call {
  method: string;
  path: string;
  query: Record<string, string>;
  body: any;
  credentials: RequestCredentials | undefined;
  contentType: string | undefined;
}

/** Options of `createFakeEndpoint`. */
export interface FakeEndpointOptions {
  /**
   * Sessions roll as the Go endpoint's do with a master key: each ends `idleMs` after it was made or last extended
   * (a confirmed request past half of it extends it), at most `maxMs` after its sign-in, and the answers with a
   * user say so (`session`). Without them, sessions never end and the answers do not say.
   */
  idleMs?: number;
  maxMs?: number;
  /** How far the endpoint's clock is ahead of the browser's (its `now` and times), in ms; default 0. */
  skewMs?: number;
}

interface FakeSession {
  user: string;
  startedAt: number;
  expiresAt: number;
}

/**
 * An in-memory implementation of the Go endpoint contract, as a `fetch` function. It verifies every signature
 * for real (ethers.verifyMessage for EVM, ed25519 for Solana) and keeps the session in a simulated HttpOnly cookie,
 * set or cleared (as a browser's cookie jar does) when the answer is delivered, not when the request is served.
 * Unknown paths answer 404 and are recorded in `unexpected`, so tests fail loudly.
 */
export function createFakeEndpoint(base = '/auth', options: FakeEndpointOptions = {}) {
  const calls: Call[] = [];
  const unexpected: string[] = [];
  const issued = new Map<string, { address: string; chain: string }>();
  const users = new Map<string, User>();
  const sessions = new Map<string, FakeSession>();
  let cookie: string | null = null;
  const rolling = options.idleMs !== undefined && options.maxMs !== undefined;
  const serverNow = () => Date.now() + (options.skewMs ?? 0);
  const iso = (t: number) => new Date(t).toISOString();
  /** The session's end as the answers carry it. */
  const endOf = (s: FakeSession) =>
    rolling ? { session: { expiresAt: iso(s.expiresAt), maxExpiresAt: iso(s.startedAt + options.maxMs!), now: iso(serverNow()) } } : {};
  let counter = 0;
  const verified: { chain: string; address: string }[] = [];
  const holds = new Map<string, { gate: Promise<void>; enter: () => void }>();
  const dataCalls: { user: string; path: string; query: Record<string, string>; body: any; cacheControl?: string }[] = [];
  /** With `chainCache.on`, chain-data answers are cached as the Go endpoint caches them (until Cache-Control: no-cache). */
  const chainCache = { on: false, answers: new Map<string, unknown>() };
  const objects = new Map<string, Record<string, any>[]>();
  const balances = new Map<string, string>();
  /** Order in which requests were answered (`METHOD /path`). */
  const answered: string[] = [];
  /** Requests served (`> METHOD /path`) and answers delivered (`< METHOD /path`), in order. */
  const log: string[] = [];
  /** Canned answers by `METHOD /path`, used once each (e.g. a bare 401 from a proxy in front of the endpoint). */
  const canned = new Map<string, () => Response>();

  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
  const fail = (status: number, code: number, error: string) => json(status, { code, error });
  /** A request with a session that is unknown or ended: 401 209, and the cookie cleared (as the Go endpoint does). */
  const gone = () => {
    if (jar) setCookie = null;
    return fail(401, 209, 'Invalid session token');
  };

  function verify(chain: string, address: string, message: string, signature: string): boolean {
    const issuedTo = issued.get(message);
    if (!issuedTo || issuedTo.address !== address || issuedTo.chain !== chain) return false;
    try {
      if (chain === 'evm') return verifyMessage(message, signature).toLowerCase() === address.toLowerCase();
      if (chain === 'solana') {
        return ed25519.verify(
          new Uint8Array(bs58.decode(signature)),
          new Uint8Array(new TextEncoder().encode(message)),
          new Uint8Array(bs58.decode(address)),
        );
      }
    } catch {
      return false;
    }
    return false;
  }

  /** The session of the request's cookie, when it has not ended (a confirmed request past half extends it). */
  function currentSession(jar: string | null, extend = true): FakeSession | undefined {
    const s = jar ? sessions.get(jar) : undefined;
    if (!s) return undefined;
    const now = serverNow();
    if (rolling && now >= Math.min(s.expiresAt, s.startedAt + options.maxMs!)) {
      sessions.delete(jar!);
      return undefined;
    }
    if (rolling && extend && now > s.expiresAt - options.idleMs! / 2) {
      s.expiresAt = Math.min(now + options.idleMs!, s.startedAt + options.maxMs!);
    }
    return s;
  }

  // The cookie the request being served carries, and the change its answer makes to the jar when delivered.
  let jar: string | null = null;
  let setCookie: string | null | undefined;

  function currentUser(): User | undefined {
    const s = currentSession(jar);
    return s ? users.get(s.user) : undefined;
  }

  const fetch = async (input: string, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input, 'http://app.test');
    const key = `${init.method ?? 'GET'} ${url.pathname.startsWith(base) ? url.pathname.slice(base.length) : url.pathname}`;
    // The request reaches the server now (with the cookie the jar holds now), but its answer may be held back: its
    // Set-Cookie reaches the jar when it is delivered.
    jar = cookie;
    setCookie = undefined;
    log.push(`> ${key}`);
    const served = serve(input, init); // runs to its end before returning (it awaits nothing)
    const change = setCookie;
    const res = await served;
    const h = holds.get(key);
    if (h) {
      h.enter();
      await h.gate;
    }
    if (init.signal?.aborted) throw init.signal.reason;
    if (change !== undefined) cookie = change;
    answered.push(key);
    log.push(`< ${key}`);
    return res;
  };

  const serve = async (input: string, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input, 'http://app.test');
    const method = init.method ?? 'GET';
    const path = url.pathname.startsWith(base) ? url.pathname.slice(base.length) : url.pathname;
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    const headers = (init.headers ?? {}) as Record<string, string>;
    calls.push({
      method,
      path,
      query: Object.fromEntries(url.searchParams),
      body,
      credentials: init.credentials,
      contentType: headers['Content-Type'],
    });
    if (init.credentials !== 'include') return fail(400, 141, 'credentials must be include');
    const once = canned.get(`${method} ${path}`);
    if (once) {
      canned.delete(`${method} ${path}`);
      return once();
    }

    if (method === 'GET' && path === '/message') {
      const address = url.searchParams.get('address') ?? '';
      const chain = url.searchParams.get('chain') ?? '';
      if (!address) return fail(400, 141, 'address is required');
      const nonce = `n${++counter}`;
      const expiresAt = new Date(Date.now() + 300_000).toISOString();
      if (chain === 'solana' && url.searchParams.get('style') === 'siws') {
        // A Sign-In with Solana message as the Go endpoint writes it, and the input that makes it.
        const issuedAt = new Date().toISOString();
        const signInInput = { domain: 'app.test', address, statement: 'Moralis Authentication', uri: 'https://app.test',
          version: '1', chainId: 'mainnet', nonce: `siws${counter}nonce`, issuedAt, expirationTime: expiresAt };
        const message = `app.test wants you to sign in with your Solana account:\n${address}\n\nMoralis Authentication\n\n` +
          `URI: https://app.test\nVersion: 1\nChain ID: mainnet\nNonce: siws${counter}nonce\nIssued At: ${issuedAt}\nExpiration Time: ${expiresAt}`;
        issued.set(message, { address, chain });
        return json(200, { message, nonce: signInInput.nonce, expiresAt, signInInput });
      }
      const message = `Moralis Authentication\n\nAddress: ${address}\nChain: ${chain}\nNonce: ${nonce}\nExpires: ${expiresAt}`;
      issued.set(message, { address, chain });
      return json(200, { message, nonce, expiresAt });
    }
    if (method === 'POST' && path === '/signin') {
      const { chain, address, message, signature } = body ?? {};
      if (!verify(chain, address, message, signature)) return fail(401, 101, 'Signature does not match address');
      issued.delete(message);
      verified.push({ chain, address });
      const field = chain === 'evm' ? 'ethAddress' : 'solAddress';
      let user = [...users.values()].find((u) => u[field] === address);
      if (!user) {
        const objectId = `u${++counter}`;
        user =
          chain === 'evm'
            ? { objectId, username: objectId, ethAddress: address, accounts: [address] }
            : { objectId, username: objectId, solAddress: address, solAccounts: [address] };
        users.set(objectId, user);
      }
      const sessionToken = `r:token${++counter}`;
      const now = serverNow();
      const made: FakeSession = { user: user.objectId, startedAt: now, expiresAt: rolling ? now + options.idleMs! : Infinity };
      sessions.set(sessionToken, made);
      // The session this browser held ends: the new one replaces it (as the Go endpoint does).
      if (jar) sessions.delete(jar);
      setCookie = sessionToken;
      // As the Go endpoint by default: the session only in the (HttpOnly) cookie, not in the body.
      return json(200, { user, ...endOf(made) });
    }
    if (method === 'POST' && path === '/link') {
      const user = currentUser();
      if (!user) return gone();
      const { chain, address, message, signature } = body ?? {};
      // A signed-in user's refusal: 404 (the Go endpoint answers 401 only for the session).
      if (!verify(chain, address, message, signature)) return fail(404, 101, 'Signature does not match address');
      issued.delete(message);
      verified.push({ chain, address });
      const list = [...new Set([...(user.solAccounts ?? []), address])];
      const next = { ...user, solAccounts: list, solAddress: list[0] };
      users.set(user.objectId, next);
      return json(200, { user: next, ...endOf(currentSession(jar, false)!) });
    }
    if (method === 'POST' && path === '/unlink') {
      const user = currentUser();
      if (!user) return gone();
      const list = (user.solAccounts ?? []).filter((a) => a !== body?.address);
      const next: User = { ...user, solAccounts: list };
      if (list[0]) next.solAddress = list[0];
      else delete next.solAddress;
      users.set(user.objectId, next);
      return json(200, { user: next, ...endOf(currentSession(jar, false)!) });
    }
    if (method === 'POST' && path === '/signout') {
      if (jar) sessions.delete(jar);
      setCookie = null;
      return json(200, {});
    }
    if (method === 'GET' && path === '/me') {
      const user = currentUser();
      return user ? json(200, { user, ...endOf(currentSession(jar, false)!) }) : gone();
    }
    if (path.startsWith('/data/')) {
      const user = currentUser();
      if (!user) return gone();
      dataCalls.push({ user: user.objectId, path, query: Object.fromEntries(url.searchParams), body, cacheControl: headers['Cache-Control'] });
      if (method === 'POST' && path === '/data/query') {
        if (typeof body?.className !== 'string') return fail(400, 102, 'className is required');
        const results = (objects.get(body.className) ?? []).filter((o) => o.owner === user.objectId);
        return json(200, { results, ...(body.count ? { count: results.length } : {}) });
      }
      if (method === 'POST' && path === '/data/function') {
        if (body?.name === 'whoami') return json(200, { result: { objectId: user.objectId, params: body.params } });
        return fail(400, 141, `Invalid function: "${body?.name}"`);
      }
      if (method === 'GET' && path === '/data/chain/balance') {
        const address = (url.searchParams.get('address') ?? user.ethAddress ?? '').toLowerCase();
        const key = `${path}?${address}&${url.searchParams.get('chain')}`;
        if (chainCache.on && headers['Cache-Control'] !== 'no-cache' && chainCache.answers.has(key)) return json(200, chainCache.answers.get(key));
        const answer = { balance: balances.get(address) ?? '0' };
        if (chainCache.on) chainCache.answers.set(key, answer);
        return json(200, answer);
      }
      if (method === 'GET' && path === '/data/chain/tokens') return json(200, []);
    }
    unexpected.push(`${method} ${path}`);
    return fail(404, 119, `unexpected ${method} ${path}`);
  };

  return {
    fetch,
    calls,
    answered,
    log,
    dataCalls,
    objects,
    balances,
    chainCache,
    /**
     * Holds back the answers of `METHOD /path` (processed by the server at once) until `release` is called;
     * `entered` resolves when the first such request arrives.
     */
    hold(key: string) {
      let release!: () => void;
      let enter!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const entered = new Promise<void>((r) => (enter = r));
      holds.set(key, { gate, enter });
      return {
        release: () => {
          holds.delete(key);
          release();
        },
        entered,
      };
    },
    /** Answers the next `METHOD /path` request with `answer()` instead of the contract's answer. */
    answerOnce(key: string, answer: () => Response) {
      canned.set(key, answer);
    },
    /** Revokes the session the cookie holds, on the server side only (expired, or signed out elsewhere). */
    revoke() {
      if (cookie) sessions.delete(cookie);
    },
    /** Signs in `address` on the server side only (another tab did): sets the cookie. */
    setCookieFor(user: User) {
      users.set(user.objectId, user);
      const token = `r:token${++counter}`;
      sessions.set(token, { user: user.objectId, startedAt: serverNow(), expiresAt: rolling ? serverNow() + options.idleMs! : Infinity });
      cookie = token;
    },
    /** How many sessions the server holds (made and not ended, whether or not a cookie holds them). */
    liveSessions: () => sessions.size,
    /** The user of the session the cookie holds now (unexpired), or undefined: what a tab should show. */
    cookieUser(): string | undefined {
      return currentSession(cookie, false)?.user;
    },
    unexpected,
    verified,
    users,
    get cookie() {
      return cookie;
    },
    paths: () => calls.map((c) => `${c.method} ${c.path}`),
  };
}

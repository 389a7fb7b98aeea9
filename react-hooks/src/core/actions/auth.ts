import {
  AbortedError,
  AddressNotFoundError,
  ConfigError,
  DataNotSignedError,
  EndpointError,
  NoAccountError,
  UserNotFoundError,
  type AbortReason,
} from '../../errors/index.js';
import { isSessionGone } from '../client.js';
import type { Config } from '../config.js';
import type { Connector, SolanaConnector } from '../connectors/types.js';
import type { Session, User } from '../types.js';
import {
  clearSession,
  endSession,
  hydrate,
  localEnd,
  nextStamp,
  pendingSignOut,
  setUser,
  startSession,
  withTabLock,
} from './session.js';
import { connect, resolveConnector } from './wallet.js';

/** Parameters of `signIn`. */
export interface SignInParameters {
  /** The wallet to sign in with (object or id); default the connected one, else the config's first connector. */
  connector?: Connector | string;
}

/** Rejects as soon as `signal` aborts, with `reason()`; else settles as `promise` does. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal, reason: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(reason());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * Signs in with a wallet: connects it when needed, GETs the message from the endpoint, has the wallet sign it
 * (`personal_sign` on EVM; on Solana a Sign-In with Solana message, through the wallet's `solana:signIn` feature
 * when it offers it, else `signMessage`), POSTs it to `/signin` and keeps the session, bound to the account (and
 * EVM chain) that signed.
 *
 * - One sign-in at a time per connector: a second call while one runs gets the same promise (one wallet prompt).
 * - If the wallet switches account or chain, disconnects, or the user signs out before the sign-in finishes, it
 *   fails at once with AbortedError (reason `accountChanged`, `chainChanged`, `disconnected`, `signedOut`); a
 *   session the endpoint opened meanwhile is signed out again, so none is kept for the wrong wallet.
 * - It waits for sign-outs still in flight, so an older sign-out answer cannot clear the new session's cookie.
 */
export function signIn(config: Config, parameters: SignInParameters = {}): Promise<User> {
  hydrate(config);
  const target =
    parameters.connector !== undefined
      ? parameters.connector
      : (config.store.getState().wallet.connector ?? config.connectors[0]);
  let resolved: Connector | undefined;
  try {
    resolved = target === undefined ? undefined : resolveConnector(config, target);
  } catch (err) {
    return Promise.reject(err);
  }
  const inflight = config._internal.signingIn;
  if (inflight && inflight.connector === resolved) return inflight.promise;
  const promise = runSignIn(config, resolved);
  config._internal.signingIn = { connector: resolved, promise };
  const forget = () => {
    if (config._internal.signingIn?.promise === promise) config._internal.signingIn = undefined;
  };
  promise.then(forget, forget);
  return promise;
}

async function runSignIn(config: Config, requested: Connector | undefined): Promise<User> {
  let { connector, account, chainId } = config.store.getState().wallet;
  if (!connector || !account || (requested && requested !== connector)) {
    ({ connector, account, chainId } = await connect(config, { connector: requested }));
  }
  if (!account) throw connector.type === 'solana' ? new AddressNotFoundError() : new NoAccountError();
  const chain = connector.type;
  const outGen = config._internal.signOutGen;
  const want = { connector, account, chainId };

  // Watches the state: the first change of wallet (or a sign-out) aborts this sign-in, and it stays aborted.
  const controller = new AbortController();
  let reason: AbortReason | undefined;
  const check = () => {
    if (reason) return;
    const w = config.store.getState().wallet;
    if (config._internal.signOutGen !== outGen) reason = 'signedOut';
    else if (!w.connector || !w.account) reason = 'disconnected';
    else if (w.connector !== want.connector || w.account !== want.account) reason = 'accountChanged';
    else if (chain === 'evm' && config.bindSessionToChain && w.chainId !== want.chainId) reason = 'chainChanged';
    if (reason) controller.abort();
  };
  const unsubscribe = config.store.subscribe(check);
  const aborted = () => new AbortedError('Sign-in', reason ?? 'superseded');
  const guard = <T>(p: Promise<T>) => raceAbort(p, controller.signal, aborted);
  try {
    await guard(pendingSignOut(config));
    const issued = await guard(
      config.client.getMessage(account, chain, { signal: controller.signal, ...(chain === 'solana' ? { style: 'siws' as const } : {}) }),
    );
    let { message } = issued;
    let signature: string | undefined;
    // Solana: the wallet's own Sign-In with Solana (solana:signIn) when it offers it, signMessage otherwise.
    const viaSignIn =
      connector.type === 'solana' && issued.signInInput && connector.signIn
        ? await guard(connector.signIn({ ...issued.signInInput }))
        : null;
    if (viaSignIn) {
      // The wallet may sign with another account than the connected one: that is not this sign-in.
      if (viaSignIn.address !== account) throw new AbortedError('Sign-in', 'accountChanged');
      ({ message, signature } = viaSignIn);
    } else {
      signature = await guard(connector.signMessage(message, account));
    }
    if (!signature) throw new DataNotSignedError();
    // One sign-in or sign-out at a time over the tabs: this answer sets the cookie, and its session is stamped,
    // before another tab's request goes out (see withTabLock).
    return await withTabLock(config, async () => {
      check();
      if (reason) throw aborted();
      // Not raced: its answer decides whether a session was opened that must be undone.
      const res = await config.client.signIn({ chain, address: account, message, signature });
      const receivedAt = Date.now();
      check();
      if (reason) {
        await endSession(config, reason === 'signedOut' ? 'signedOut' : reason === 'chainChanged' ? 'chainChanged' : 'accountChanged');
        throw aborted();
      }
      // The session itself is the server's HttpOnly cookie; a token is kept (in memory) only if the endpoint sent one.
      const session: Session = { user: res.user, chain, address: account, ...localEnd(res.session, receivedAt) };
      if (res.sessionToken) session.sessionToken = res.sessionToken;
      if (chain === 'evm' && chainId !== null) session.chainId = chainId;
      startSession(config, session);
      return res.user;
    });
  } finally {
    unsubscribe();
  }
}

/**
 * Signs out at the endpoint (clearing the cookie) and forgets the session, in this tab and in the other tabs of the
 * app (they share the cookie): every session they show that was signed in before it ends. It waits for a sign-in or
 * sign-out running in another tab (withTabLock), so whatever session the cookie holds when it is sent is the one it
 * ends, everywhere. An answer saying the session was already gone counts as signed out. The wallet stays connected.
 */
export async function signOut(config: Config): Promise<void> {
  hydrate(config);
  config._internal.signOutGen++;
  await withTabLock(config, async () => {
    const stamp = nextStamp(config);
    try {
      await config.client.signOut();
    } catch (err) {
      if (!(err instanceof EndpointError && isSessionGone('/signout', err.status, err.code))) throw err;
    }
    clearSession(config, 'signedOut', stamp);
  });
}

/**
 * Asks the endpoint who is signed in (`GET /me`) and updates the session: null when the answer is 401. Concurrent
 * calls share one request. An answer that arrives after the session changed (a sign-in or sign-out finished
 * meanwhile) is stale and ignored: it resolves with the current user and changes nothing.
 */
export function fetchUser(config: Config): Promise<User | null> {
  hydrate(config);
  const sessionId = config.store.getState().sessionId;
  const inflight = config._internal.meInFlight;
  if (inflight && inflight.sessionId === sessionId) return inflight.promise;
  config.store.setState({ sessionStatus: 'pending', sessionError: null });
  const current = () => config.store.getState().session?.user ?? null;
  const promise = (async () => {
    try {
      const answer = await config.client.getSession();
      const receivedAt = Date.now();
      const user = answer?.user ?? null;
      if (config.store.getState().sessionId !== sessionId) return current();
      if (user) setUser(config, user, localEnd(answer?.session, receivedAt));
      else {
        if (config.store.getState().session) clearSession(config, 'expired');
        config.store.setState({ sessionStatus: 'success' });
      }
      return user ? current() : null;
    } catch (err) {
      if (config.store.getState().sessionId === sessionId) {
        config.store.setState({ sessionStatus: 'error', sessionError: err as Error });
        throw err;
      }
      return current();
    }
  })();
  config._internal.meInFlight = { sessionId, promise };
  const forget = () => {
    if (config._internal.meInFlight?.promise === promise) config._internal.meInFlight = undefined;
  };
  promise.then(forget, forget);
  return promise;
}

function requireUser(config: Config): User {
  hydrate(config);
  const user = config.store.getState().session?.user;
  if (!user) throw new UserNotFoundError();
  return user;
}

function solanaConnector(config: Config, connector?: SolanaConnector): SolanaConnector {
  const found = connector ?? config.connectors.find((c): c is SolanaConnector => c.type === 'solana');
  if (!found) throw new ConfigError('No Solana connector configured (add phantom() to connectors)');
  return found;
}

/**
 * Links a Solana address to the signed-in user: connects the Solana wallet (trusted first), GETs a message,
 * signs it and POSTs it to `/link`. Returns the updated user. Fails with AbortedError (`signedOut`) and changes
 * nothing locally when the session ended meanwhile.
 */
export async function linkSolana(config: Config, parameters: { connector?: SolanaConnector } = {}): Promise<User> {
  requireUser(config);
  const sessionId = config.store.getState().sessionId;
  const connector = solanaConnector(config, parameters.connector);
  const { accounts } = await connector.connect();
  const address = accounts[0];
  if (!address) throw new AddressNotFoundError();
  const { message } = await config.client.getMessage(address, 'solana');
  const signature = await connector.signMessage(message, address);
  if (!signature) throw new DataNotSignedError();
  if (config.store.getState().sessionId !== sessionId) throw new AbortedError('Link', 'signedOut');
  const { user, session } = await config.client.link({ chain: 'solana', address, message, signature });
  const receivedAt = Date.now();
  if (config.store.getState().sessionId !== sessionId) throw new AbortedError('Link', 'signedOut');
  setUser(config, user, localEnd(session, receivedAt));
  return user;
}

/**
 * Unlinks a Solana address from the signed-in user (`POST /unlink`). Throws "Address not found" when the address
 * is not one of the user's `solAccounts`. Returns the updated user.
 */
export async function unlinkSolana(config: Config, parameters: { address: string }): Promise<User> {
  const current = requireUser(config);
  const sessionId = config.store.getState().sessionId;
  if (!parameters?.address || !(current.solAccounts ?? []).includes(parameters.address)) {
    throw new AddressNotFoundError();
  }
  const { user, session } = await config.client.unlink({ chain: 'solana', address: parameters.address });
  const receivedAt = Date.now();
  if (config.store.getState().sessionId !== sessionId) throw new AbortedError('Unlink', 'signedOut');
  setUser(config, user, localEnd(session, receivedAt));
  return user;
}

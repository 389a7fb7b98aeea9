import {
  CURRENT_USER_KEY,
  SESSION_BINDING_KEY,
  type Config,
  type InitialState,
  type State,
  type WalletState,
} from '../config.js';
import { parseCookie } from '../storage.js';
import { openTabChannel, type TabMessage } from '../tabs.js';
import type { ChainType, Session, SessionEndReason, User } from '../types.js';

/** What is stored about the wallet a session was signed with (never a token). */
interface Binding {
  objectId: string;
  address?: string;
  chain?: ChainType;
  chainId?: number;
}

/** True for a user object as the endpoint returns it. */
export function isUser(value: unknown): value is User {
  return !!value && typeof value === 'object' && typeof (value as User).objectId === 'string' && (value as User).objectId !== '';
}

function withBinding(user: User, binding: unknown): Session {
  const session: Session = { user };
  const b = binding as Partial<Binding> | null;
  if (b && typeof b === 'object' && b.objectId === user.objectId) {
    if (typeof b.address === 'string' && b.address) session.address = b.address;
    if (b.chain === 'evm' || b.chain === 'solana') session.chain = b.chain;
    if (typeof b.chainId === 'number' && Number.isSafeInteger(b.chainId)) session.chainId = b.chainId;
  }
  return session;
}

function persist(config: Config, session: Session | null): void {
  if (!session) {
    config.storage.removeItem(CURRENT_USER_KEY);
    config.storage.removeItem(SESSION_BINDING_KEY);
    return;
  }
  config.storage.setItem(CURRENT_USER_KEY, session.user);
  const binding: Binding = { objectId: session.user.objectId };
  if (session.address) binding.address = session.address;
  if (session.chain) binding.chain = session.chain;
  if (session.chainId !== undefined) binding.chainId = session.chainId;
  config.storage.setItem(SESSION_BINDING_KEY, binding);
}

const sameAddress = (a: string, b: string, chain: ChainType | null) =>
  chain === 'solana' ? a === b : a.toLowerCase() === b.toLowerCase();

/** The addresses of `user` that can sign for it on `chain`. */
function linkedAddresses(user: User, chain: ChainType | null): string[] {
  if (chain === 'solana') return [user.solAddress, ...(user.solAccounts ?? [])].filter((a): a is string => !!a);
  return [user.ethAddress, ...(user.accounts ?? [])].filter((a): a is string => typeof a === 'string' && !!a);
}

/**
 * Whether `session` may be shown with `wallet`: null when it may (or when no wallet account is known), else why it
 * must end. A session records the address (and chain) it was signed with; one restored from `/me` without a
 * record matches any address linked to the user.
 */
export function sessionMismatch(config: Config, session: Session | null, wallet: WalletState): SessionEndReason | null {
  if (!session || !wallet.account) return null;
  if (session.address) {
    if (!sameAddress(session.address, wallet.account, wallet.chainType)) return 'accountChanged';
  } else if (!linkedAddresses(session.user, wallet.chainType).some((a) => sameAddress(a, wallet.account!, wallet.chainType))) {
    return 'accountChanged';
  }
  if (
    config.bindSessionToChain &&
    wallet.chainType === 'evm' &&
    session.chainId !== undefined &&
    wallet.chainId !== null &&
    wallet.chainId !== session.chainId
  ) {
    return 'chainChanged';
  }
  return null;
}

/** The state change that ends the session, for `reason`. */
function ended(state: State, reason: SessionEndReason): Partial<State> {
  return {
    session: null,
    sessionId: state.sessionId + 1,
    sessionEnded: reason,
    sessionStatus: 'success',
    sessionError: null,
  };
}

/**
 * Tells the other tabs of the app that the session ended here at `at` (their sessions share the cookie, so they
 * end too, unless they started after `at`). A no-op until hydration opened the channel, or with `syncTabs: false`.
 */
export function announceSessionEnd(config: Config, reason: SessionEndReason, at: number): void {
  config._internal.tabs?.post({ type: 'sessionEnded', reason, at });
}

/**
 * A message from another tab: its session ended at `message.at`. This tab's session ends too (same cookie) unless
 * it started later (a sign-in here after the other tab's sign-out). Only the local state changes: storage is shared
 * and was cleared by the sender, and nothing is sent to the endpoint (it could end a newer session).
 */
function onTabMessage(config: Config, message: TabMessage): void {
  const state = config.store.getState();
  if (!state.session || config._internal.sessionStartedAt > message.at) return;
  config.store.setState(ended(state, message.reason));
}

/**
 * An endpoint answer to a request sent at `sentAt` with session `sessionId` says the session is gone (401, or
 * Parse code 209): that session ends at once (reason 'expired', or 'signedOut' for an answer to `/signout`), here
 * and in the other tabs. An answer about an older session (one that ended while the request was in flight) changes
 * nothing. Nothing is sent to the endpoint: it already refused the session; a sign-in in flight is not aborted.
 */
export function sessionGone(config: Config, sessionId: number, sentAt: number, route: string): void {
  const state = config.store.getState();
  if (!state.session || state.sessionId !== sessionId) return;
  const reason: SessionEndReason = route === '/signout' ? 'signedOut' : 'expired';
  // Not a sign-out: a sign-in in flight goes on (its new session replaces the refused one).
  config.store.setState(ended(state, reason));
  persist(config, null);
  announceSessionEnd(config, reason, sentAt);
}

/** Asks the endpoint to end the session (clears the cookie); remembered so a following sign-in waits for it. */
function remoteSignOut(config: Config): Promise<void> {
  const p = config.client.signOut().catch(() => {});
  const all = Promise.all([config._internal.pendingSignOut, p]).then(() => {});
  config._internal.pendingSignOut = all;
  return all;
}

/** Resolves once the endpoint answered every sign-out sent so far (a sign-in must not overtake one). */
export function pendingSignOut(config: Config): Promise<void> {
  return config._internal.pendingSignOut ?? Promise.resolve();
}

/**
 * Sets the wallet state and, in the same state change, ends a session bound to another account or chain (the
 * endpoint is told in the background). A session without a recorded address adopts the wallet's when that address
 * is linked to the user. Every change of wallet state goes through here.
 */
export function applyWallet(config: Config, wallet: WalletState): void {
  const state = config.store.getState();
  const reason = sessionMismatch(config, state.session, wallet);
  if (reason) {
    config._internal.signOutGen++;
    config.store.setState({ wallet, ...ended(state, reason) });
    persist(config, null);
    announceSessionEnd(config, reason, Date.now());
    void remoteSignOut(config);
    return;
  }
  const session = state.session;
  if (session && !session.address && wallet.account && wallet.chainType) {
    const bound: Session = { ...session, address: wallet.account, chain: wallet.chainType };
    if (wallet.chainType === 'evm' && wallet.chainId !== null) bound.chainId = wallet.chainId;
    config.store.setState({ wallet, session: bound });
    persist(config, bound);
    return;
  }
  config.store.setState({ wallet });
}

/** Starts a new session (after a sign-in): a new `sessionId`, the binding recorded and stored. */
export function startSession(config: Config, session: Session): void {
  const state = config.store.getState();
  config._internal.sessionStartedAt = Date.now();
  config.store.setState({
    session,
    sessionId: state.sessionId + 1,
    sessionStatus: 'success',
    sessionError: null,
    sessionEnded: null,
  });
  persist(config, session);
}

/**
 * Sets the user the endpoint reports (`/me`, link, unlink). The same user keeps the session (and its binding);
 * another user starts a new one. The result is checked against the connected wallet.
 */
export function setUser(config: Config, user: User): void {
  const state = config.store.getState();
  const current = state.session;
  if (current && current.user.objectId === user.objectId) {
    const session = { ...current, user };
    config.store.setState({ session, sessionStatus: 'success', sessionError: null });
    persist(config, session);
  } else {
    startSession(config, { user });
  }
  applyWallet(config, config.store.getState().wallet);
}

/**
 * Forgets the session locally (storage too), recording why. With `announceAt`, the other tabs are told that the
 * session ended at that time (see `announceSessionEnd`).
 */
export function clearSession(config: Config, reason: SessionEndReason = 'signedOut', announceAt?: number): void {
  const state = config.store.getState();
  config._internal.signOutGen++;
  if (state.session) config.store.setState(ended(state, reason));
  else config.store.setState({ sessionEnded: state.sessionEnded ?? null });
  persist(config, null);
  if (announceAt !== undefined) announceSessionEnd(config, reason, announceAt);
}

/**
 * Ends the session: forgets it locally at once (and in the other tabs), then asks the endpoint to sign out (which
 * clears the cookie). Endpoint errors are ignored.
 */
export async function endSession(config: Config, reason: SessionEndReason = 'signedOut'): Promise<void> {
  clearSession(config, reason, Date.now());
  await remoteSignOut(config);
}

/**
 * Reads the stored session (user and wallet binding) into the state, once per config, unless the state already
 * holds one. `MoralisProvider` calls it
 * during the first client render, or after it with `ssr: true`; actions call it too, so plain-function use works.
 * Never called during server rendering.
 */
export function hydrate(config: Config): void {
  if (config._internal.hydrated) return;
  config._internal.hydrated = true;
  if (config.syncTabs) {
    const name = `moralis-go:${config.storage.key}:${config.endpoint}`;
    config._internal.tabs = openTabChannel(name, (m) => onTabMessage(config, m), config.BroadcastChannel);
  }
  const state = config.store.getState();
  // A session already in the state (initialState, or set before) is kept; `/me` then says what is current.
  if (!state.session) {
    const user = config.storage.getItem<unknown>(CURRENT_USER_KEY);
    if (isUser(user)) {
      const stored = withBinding(user, config.storage.getItem(SESSION_BINDING_KEY));
      config._internal.sessionStartedAt = Date.now();
      config.store.setState({ session: stored, sessionId: state.sessionId + 1 });
    }
  }
  applyWallet(config, config.store.getState().wallet);
}

/**
 * The state to render on the server: the signed-in user and its wallet binding, read from the request's `Cookie`
 * header as written by `cookieStorage()` (same `storageKey`). Pass it as `initialState` to `MoralisProvider` on the
 * server and, serialised, on the client.
 */
export function cookieToInitialState(config: Config, cookieHeader: string | null | undefined): InitialState {
  const read = (key: string): unknown => {
    const raw = parseCookie(cookieHeader, `${config.storage.key}.${key}`);
    if (raw == null) return null;
    try {
      return JSON.parse(raw);
    } catch {
      return null;
    }
  };
  const user = read(CURRENT_USER_KEY);
  return { session: isUser(user) ? withBinding(user, read(SESSION_BINDING_KEY)) : null };
}

/**
 * Applies the server's state (see `cookieToInitialState`) before the first render. On the client it runs once per
 * config; on the server (no `window`) on every render, so a config shared between requests renders each request's
 * own state. Malformed input is ignored.
 */
export function applyInitialState(config: Config, initialState: InitialState | undefined): void {
  if (!initialState) return;
  const onServer = typeof (globalThis as { window?: unknown }).window === 'undefined';
  if (config._internal.initialApplied && !onServer) return;
  config._internal.initialApplied = true;
  const raw = initialState.session;
  const session = raw && isUser(raw.user) ? withBinding(raw.user, { ...raw, objectId: raw.user.objectId }) : null;
  const state = config.store.getState();
  if (session) config._internal.sessionStartedAt = Date.now();
  config.store.setState({ session, sessionId: state.sessionId + (session ? 1 : 0) });
  config._internal.serverState = config.store.getState();
}

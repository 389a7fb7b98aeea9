import {
  CURRENT_USER_KEY,
  SESSION_BINDING_KEY,
  type Config,
  type InitialState,
  type State,
  type WalletState,
} from '../config.js';
import type { SessionEnd } from '../client.js';
import { fetchUser } from './auth.js';
import { parseCookie } from '../storage.js';
import { compareStamps, openTabChannel, parseStamp, type SharedSession, type Stamp, type TabMessage } from '../tabs.js';
import type { ChainType, Session, SessionEndReason, User } from '../types.js';

// The session of a config, and how the tabs of one app agree on it.
//
// Every tab (config) shows the state with the newest stamp it knows (tabs.ts, Stamp): a session, identified by the
// stamp of its sign-in (`sid`), or none. A change made here gets a new stamp, is stored (for tabs opened later) and
// posted to the other tabs; a message is applied only when it is newer than what this tab shows, so a late message
// never undoes a newer state. Sign-ins and sign-outs run one at a time over all the tabs (`withTabLock`, the Web
// Locks API): the one whose answer sets the cookie last is the one stamped last, so the tabs end up showing the
// session the cookie holds.

/** What is stored about the wallet a session was signed with (never a token), and the session's stamps and end. */
interface Binding {
  objectId?: string;
  address?: string;
  chain?: ChainType;
  chainId?: number;
  /** The session's identity (the stamp of its sign-in). */
  sid?: Stamp;
  /** The stamp of the stored state: a tab writes only a newer one. Alone (no objectId): signed out at `v`. */
  v?: Stamp;
  expiresAt?: number;
  maxExpiresAt?: number;
}

/** The sid of a session from before stamps (storage of an older version, a server's initial state): the oldest. */
const OLDEST: Stamp = { t: 0, tab: '', n: 0 };

/** True for a user object as the endpoint returns it. */
export function isUser(value: unknown): value is User {
  return !!value && typeof value === 'object' && typeof (value as User).objectId === 'string' && (value as User).objectId !== '';
}

const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function withBinding(user: User, binding: unknown): Session {
  const session: Session = { user };
  const b = binding as Partial<Binding> | null;
  if (b && typeof b === 'object' && b.objectId === user.objectId) {
    if (typeof b.address === 'string' && b.address) session.address = b.address;
    if (b.chain === 'evm' || b.chain === 'solana') session.chain = b.chain;
    if (typeof b.chainId === 'number' && Number.isSafeInteger(b.chainId)) session.chainId = b.chainId;
    if (isTime(b.expiresAt)) session.expiresAt = b.expiresAt;
    if (isTime(b.maxExpiresAt)) session.maxExpiresAt = b.maxExpiresAt;
  }
  return session;
}

/**
 * The session's end in this browser's time (`Date.now()` scale) from an endpoint answer received at `receivedAt`:
 * the endpoint's times measured from its own clock (`now`), so a browser clock that is off does not matter. Empty
 * when the answer does not say.
 */
export function localEnd(end: SessionEnd | undefined, receivedAt: number): Pick<Session, 'expiresAt' | 'maxExpiresAt'> {
  if (!end || typeof end !== 'object') return {};
  const now = Date.parse(end.now);
  const at = (s: string | undefined) => {
    const t = typeof s === 'string' ? Date.parse(s) : NaN;
    return Number.isFinite(t) && Number.isFinite(now) ? receivedAt + (t - now) : undefined;
  };
  const out: Pick<Session, 'expiresAt' | 'maxExpiresAt'> = {};
  const e = at(end.expiresAt);
  const m = at(end.maxExpiresAt);
  if (e !== undefined) out.expiresAt = e;
  if (m !== undefined) out.maxExpiresAt = m;
  return out;
}

/** A new stamp of this tab: now, but after every stamp it has seen. */
export function nextStamp(config: Config): Stamp {
  const internal = config._internal;
  internal.clock = Math.max(Date.now(), internal.clock + 1);
  return { t: internal.clock, tab: internal.tabId, n: 0 };
}

/** Takes note of a stamp made elsewhere (the clock never goes back behind it) and of the newest state seen. */
function see(config: Config, stamp: Stamp) {
  const internal = config._internal;
  internal.clock = Math.max(internal.clock, stamp.t);
  if (compareStamps(stamp, internal.version) > 0) internal.version = stamp;
}

/** The report that session `sid` is gone: after it, before anything stamped later. */
const goneStamp = (sid: Stamp): Stamp => ({ t: sid.t, tab: sid.tab, n: 1 });

/** The binding stored last (any tab's). */
function storedBinding(config: Config): Binding | null {
  const b = config.storage.getItem<Binding>(SESSION_BINDING_KEY);
  return b && typeof b === 'object' ? b : null;
}

/**
 * Stores the state stamped `version` (a session, or none), unless the storage already holds a newer one (another
 * tab's): tabs opened later read it.
 */
function persist(config: Config, session: Session | null, version: Stamp): void {
  const stored = parseStamp(storedBinding(config)?.v);
  if (compareStamps(stored, version) > 0) return;
  if (!session) {
    config.storage.removeItem(CURRENT_USER_KEY);
    config.storage.setItem(SESSION_BINDING_KEY, { v: version });
    return;
  }
  config.storage.setItem(CURRENT_USER_KEY, session.user);
  const binding: Binding = { objectId: session.user.objectId, sid: config._internal.sid ?? OLDEST, v: version };
  if (session.address) binding.address = session.address;
  if (session.chain) binding.chain = session.chain;
  if (session.chainId !== undefined) binding.chainId = session.chainId;
  if (session.expiresAt !== undefined) binding.expiresAt = session.expiresAt;
  if (session.maxExpiresAt !== undefined) binding.maxExpiresAt = session.maxExpiresAt;
  config.storage.setItem(SESSION_BINDING_KEY, binding);
}

/** The session as the tabs share it (no token). */
function shared(sid: Stamp, session: Session): SharedSession {
  const { sessionToken: _token, ...rest } = session;
  return { sid, ...rest };
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

/** Posts `message` to the other tabs (a no-op until hydration opened the channel, or with `syncTabs: false`). */
function post(config: Config, message: TabMessage): void {
  config._internal.tabs?.post(message);
}

/**
 * Shows `session` (identified by `sid`) in this tab as a new session: a new `sessionId`, the end timer set. Nothing
 * is stored or posted.
 */
function show(config: Config, sid: Stamp, session: Session, version: Stamp): void {
  const state = config.store.getState();
  config._internal.sid = sid;
  see(config, version);
  config.store.setState({
    session,
    sessionId: state.sessionId + 1,
    sessionStatus: 'success',
    sessionError: null,
    sessionEnded: null,
  });
}

/** Ends the session shown here for `reason`, as of `version`. Nothing is stored, posted or sent. */
function hide(config: Config, reason: SessionEndReason, version: Stamp): void {
  const state = config.store.getState();
  config._internal.sid = null;
  see(config, version);
  if (state.session) config.store.setState(ended(state, reason));
}

/**
 * A message from another tab. Newer than what this tab shows, it is applied: a session started there is shown here
 * too (unless this tab's wallet is on another account or chain: then this tab shows none, and ends nothing, as the
 * session is the other wallet's); a sign-out there ends every older session here; a session reported gone ends
 * here if it is the one shown (or an older one). Only the local state changes: the sender stored the state, and
 * nothing is sent to the endpoint.
 */
function onTabMessage(config: Config, message: TabMessage): void {
  const internal = config._internal;
  const state = config.store.getState();
  switch (message.type) {
    case 'session': {
      const { sid, ...rest } = message.session;
      const session: Session = rest;
      if (internal.sid && compareStamps(internal.sid, sid) === 0 && state.session) {
        // The same session, changed there (its user, its binding, its end): kept, updated.
        if (compareStamps(message.stamp, internal.version) <= 0) return;
        const next: Session = { ...state.session, ...session, user: session.user };
        const mismatch = sessionMismatch(config, next, state.wallet);
        if (mismatch) hide(config, mismatch, message.stamp);
        else {
          see(config, message.stamp);
          config.store.setState({ session: next });
        }
        return;
      }
      if (compareStamps(sid, internal.version) <= 0 || compareStamps(message.stamp, internal.version) <= 0) {
        internal.clock = Math.max(internal.clock, message.stamp.t);
        return; // this tab knows of a newer state (a later sign-in or sign-out, or this session's end)
      }
      const mismatch = sessionMismatch(config, session, state.wallet);
      if (mismatch) {
        hide(config, mismatch, message.stamp);
        if (!state.session) config.store.setState({ sessionEnded: mismatch });
        return;
      }
      show(config, sid, session, message.stamp);
      return;
    }
    case 'signedOut':
      if (compareStamps(internal.sid, message.stamp) < 0) {
        if (state.session) hide(config, message.reason, message.stamp);
        else see(config, message.stamp);
      } else internal.clock = Math.max(internal.clock, message.stamp.t);
      return;
    case 'gone':
      if (state.session && compareStamps(internal.sid, message.sid) <= 0) hide(config, message.reason, goneStamp(message.sid));
      else see(config, goneStamp(message.sid));
      return;
  }
}

/**
 * An endpoint answer to a request sent with session `sessionId` says the session is gone (401, or Parse code
 * 209): that session ends at once (reason 'expired', or 'signedOut' for an answer to `/signout` or when the answer
 * says it was signed out, as the last event of a live stream that a sign-out ended does), here and in the other
 * tabs. An answer about an older session (one that ended while the request was in flight) changes nothing.
 * Nothing is sent to the endpoint: it already refused the session; a sign-in in flight is not aborted.
 */
export function sessionGone(config: Config, sessionId: number, route: string, said?: unknown): void {
  const state = config.store.getState();
  if (!state.session || state.sessionId !== sessionId) return;
  const reason: SessionEndReason = route === '/signout' || said === 'signedOut' ? 'signedOut' : 'expired';
  endGone(config, reason);
}

/** The session shown is gone (refused, or past its end): ended here, stored, and reported to the other tabs. */
function endGone(config: Config, reason: SessionEndReason): void {
  const sid = config._internal.sid ?? OLDEST;
  const version = goneStamp(sid);
  hide(config, reason, version);
  persist(config, null, version);
  post(config, { type: 'gone', sid, reason });
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

/** The Web Locks API of the config, or undefined. */
function lockManager(config: Config) {
  if (config.locks !== undefined) return config.locks ?? undefined;
  try {
    return (globalThis as { navigator?: { locks?: Config['locks'] } }).navigator?.locks ?? undefined;
  } catch {
    return undefined;
  }
}

/** How long a sign-in or sign-out waits for another tab's to finish before it goes on without the lock. */
export const TAB_LOCK_WAIT_MS = 30_000;

/**
 * Runs `fn` while no other tab of the app signs in or out (a Web Lock named after the app's channel), so that the
 * order of the tabs' stamps is the order in which the endpoint's answers set the cookie. Without the Web Locks
 * API, with `syncTabs: false`, or when the lock is not granted within TAB_LOCK_WAIT_MS, it runs at once.
 */
export async function withTabLock<T>(config: Config, fn: () => Promise<T>): Promise<T> {
  const locks = config.syncTabs ? lockManager(config) : undefined;
  if (!locks) return fn();
  let ran = false;
  try {
    const signal = typeof AbortSignal !== 'undefined' && 'timeout' in AbortSignal ? AbortSignal.timeout(TAB_LOCK_WAIT_MS) : undefined;
    return await locks.request(`${channelName(config)}:session`, signal ? { signal } : {}, async () => {
      ran = true;
      try {
        return await fn();
      } finally {
        pastStamps(config);
      }
    });
  } catch (err) {
    if (ran) throw err;
    return fn(); // not granted (timed out, or refused by the browser): without the lock
  }
}

/**
 * Waits (at most 5 ms) until the clock is past every stamp this tab made: the next holder of the lock, in another
 * tab, has not seen them yet, and its own stamps (`Date.now()`, the same clock) must come after them, also within
 * the same millisecond.
 */
function pastStamps(config: Config): void {
  const until = config._internal.clock;
  const deadline = performance.now() + 5;
  while (Date.now() <= until && performance.now() < deadline) {
    // the next millisecond
  }
}

/**
 * Sets the wallet state and, in the same state change, ends a session bound to another account or chain (the
 * endpoint is told in the background, and the other tabs). A session without a recorded address adopts the
 * wallet's when that address is linked to the user. Every change of wallet state goes through here.
 */
export function applyWallet(config: Config, wallet: WalletState): void {
  const state = config.store.getState();
  const reason = sessionMismatch(config, state.session, wallet);
  if (reason) {
    config._internal.signOutGen++;
    const version = nextStamp(config);
    config._internal.sid = null;
    see(config, version);
    config.store.setState({ wallet, ...ended(state, reason) });
    persist(config, null, version);
    post(config, { type: 'signedOut', stamp: version, reason });
    void remoteSignOut(config);
    return;
  }
  const session = state.session;
  if (session && !session.address && wallet.account && wallet.chainType) {
    const bound: Session = { ...session, address: wallet.account, chain: wallet.chainType };
    if (wallet.chainType === 'evm' && wallet.chainId !== null) bound.chainId = wallet.chainId;
    config.store.setState({ wallet, session: bound });
    announceChange(config, bound);
    return;
  }
  config.store.setState({ wallet });
}

/** Stores a change of the session shown (its user, binding or end) and posts it to the other tabs. */
function announceChange(config: Config, session: Session): void {
  const sid = config._internal.sid ?? OLDEST;
  const version = nextStamp(config);
  see(config, version);
  persist(config, session, version);
  post(config, { type: 'session', stamp: version, session: shared(sid, session) });
}

/**
 * Starts a new session (after a sign-in): a new stamp and `sessionId`, stored and posted to the other tabs. Call it
 * inside `withTabLock` when the session comes from an answer that set the cookie.
 */
export function startSession(config: Config, session: Session): void {
  const sid = nextStamp(config);
  show(config, sid, session, sid);
  persist(config, session, sid);
  post(config, { type: 'session', stamp: sid, session: shared(sid, session) });
}

/**
 * Sets the user the endpoint reports (`/me`, link, unlink), and when the session ends when the answer says so
 * (`end`: `localEnd` of it). The same user keeps the session (and its binding); another user starts a new one.
 * The result is checked against the connected wallet, then stored and posted to the other tabs.
 */
export function setUser(config: Config, user: User, end: Pick<Session, 'expiresAt' | 'maxExpiresAt'> = {}): void {
  const state = config.store.getState();
  const current = state.session;
  if (current && current.user.objectId === user.objectId) {
    const session = { ...current, ...end, user };
    config.store.setState({ session, sessionStatus: 'success', sessionError: null });
    announceChange(config, session);
  } else {
    startSession(config, { user, ...end });
  }
  applyWallet(config, config.store.getState().wallet);
}

/**
 * Forgets the session locally (storage too), recording why. With `stamp` (the time of a sign-out, from
 * `nextStamp`), the other tabs are told: every session they show that is older ends too.
 */
export function clearSession(config: Config, reason: SessionEndReason = 'signedOut', stamp?: Stamp): void {
  const state = config.store.getState();
  config._internal.signOutGen++;
  const version = stamp ?? nextStamp(config);
  config._internal.sid = null;
  see(config, version);
  if (state.session) config.store.setState(ended(state, reason));
  else config.store.setState({ sessionEnded: state.sessionEnded ?? null });
  persist(config, null, version);
  if (stamp) post(config, { type: 'signedOut', stamp, reason });
}

/**
 * Ends the session: forgets it locally at once (and in the other tabs), then asks the endpoint to sign out (which
 * clears the cookie). Endpoint errors are ignored.
 */
export async function endSession(config: Config, reason: SessionEndReason = 'signedOut'): Promise<void> {
  clearSession(config, reason, nextStamp(config));
  await remoteSignOut(config);
}

/** The name of the app's channel between tabs (and of its lock). */
function channelName(config: Config): string {
  return `moralis-go:${config.storage.key}:${config.endpoint}`;
}

/** The longest a timer waits before the end is checked again (setTimeout's limit is about 24.8 days). */
const MAX_TIMER_MS = 24 * 3600 * 1000;
/** After a failed check of the session at its idle end, the next one waits this long. */
export const END_RETRY_MS = 30_000;

/**
 * Sets the timer of the session's end (see `checkEnd`), or clears it when the session has no known end. Called on
 * every change of the session shown (hydrate subscribes it to the store).
 */
function scheduleEnd(config: Config): void {
  const internal = config._internal;
  if (internal.endTimer !== undefined) clearTimeout(internal.endTimer);
  internal.endTimer = undefined;
  const s = config.store.getState().session;
  if (!s || (s.expiresAt === undefined && s.maxExpiresAt === undefined)) return;
  let due = Math.min(s.expiresAt ?? Infinity, s.maxExpiresAt ?? Infinity);
  if (internal.endRetryAt !== undefined && internal.endRetryAt > due) due = internal.endRetryAt;
  const delay = Math.min(Math.max(0, due - Date.now()), MAX_TIMER_MS);
  const timer = setTimeout(() => {
    internal.endTimer = undefined;
    checkEnd(config);
  }, delay);
  (timer as { unref?: () => void }).unref?.();
  internal.endTimer = timer;
}

/**
 * Whether the session shown has come to its end (this browser's clock): past `maxExpiresAt` it is over, here and in
 * the other tabs, without a request; past `expiresAt` the endpoint is asked (`/me`), as a request from any tab may
 * have moved the end: its answer ends the session (401) or gives the new end. A failed check is made again after
 * END_RETRY_MS; until then the session stays (its status says the error).
 */
export function checkEnd(config: Config): void {
  const s = config.store.getState().session;
  const internal = config._internal;
  if (!s) return;
  const now = Date.now();
  if (s.maxExpiresAt !== undefined && now >= s.maxExpiresAt) {
    endGone(config, 'expired');
    return;
  }
  if (s.expiresAt === undefined || now < s.expiresAt || (internal.endRetryAt !== undefined && now < internal.endRetryAt)) {
    scheduleEnd(config);
    return;
  }
  if (internal.endCheck) return;
  const sessionId = config.store.getState().sessionId;
  internal.endCheck = fetchUser(config).then(
    () => {
      internal.endRetryAt = undefined;
    },
    () => {
      internal.endRetryAt = Date.now() + END_RETRY_MS;
    },
  ).finally(() => {
    internal.endCheck = undefined;
    const state = config.store.getState();
    if (state.session && state.sessionId === sessionId) {
      // Still the same session: when the answer gave no later end, check no sooner than a retry's wait.
      const after = state.session.expiresAt;
      if (after === undefined || after <= Date.now()) internal.endRetryAt = Math.max(internal.endRetryAt ?? 0, Date.now() + END_RETRY_MS);
    }
    scheduleEnd(config);
  });
}

/**
 * Reads the stored session (user and wallet binding) into the state, once per config, unless the state already
 * holds one, opens the channel to the other tabs and starts watching the session's end. `MoralisProvider` calls it
 * during the first client render, or after it with `ssr: true`; actions call it too, so plain-function use works.
 * Never called during server rendering.
 */
export function hydrate(config: Config): void {
  const internal = config._internal;
  if (internal.hydrated) return;
  internal.hydrated = true;
  if (config.syncTabs) {
    internal.tabs = openTabChannel(channelName(config), (m) => onTabMessage(config, m), config.BroadcastChannel);
  }
  const binding = storedBinding(config);
  const storedVersion = parseStamp(binding?.v);
  if (storedVersion) see(config, storedVersion);
  const state = config.store.getState();
  // A session already in the state (initialState, or set before) is kept; `/me` then says what is current.
  if (!state.session) {
    const user = config.storage.getItem<unknown>(CURRENT_USER_KEY);
    if (isUser(user)) {
      const stored = withBinding(user, binding);
      internal.sid = (binding?.objectId === user.objectId ? parseStamp(binding?.sid) : null) ?? OLDEST;
      config.store.setState({ session: stored, sessionId: state.sessionId + 1 });
    }
  }
  let last: Session | null = null;
  const onChange = () => {
    const s = config.store.getState().session;
    if (s === last) return;
    const changed = !s || !last || s.expiresAt !== last.expiresAt || s.maxExpiresAt !== last.maxExpiresAt;
    last = s;
    if (changed) {
      internal.endRetryAt = undefined;
      scheduleEnd(config);
    }
  };
  config.store.subscribe(onChange);
  onChange();
  // A timer may fire late (a sleeping laptop, a throttled background tab): the end is checked again when the page
  // is shown and when the network is back.
  const w = (globalThis as { window?: { addEventListener?: (t: string, l: () => void) => void } }).window;
  const d = (globalThis as { document?: { visibilityState?: string; addEventListener?: (t: string, l: () => void) => void } }).document;
  d?.addEventListener?.('visibilitychange', () => {
    if (d.visibilityState === 'visible') checkEnd(config);
  });
  w?.addEventListener?.('online', () => checkEnd(config));
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
  config._internal.sid = session ? OLDEST : null;
  config.store.setState({ session, sessionId: state.sessionId + (session ? 1 : 0) });
  config._internal.serverState = config.store.getState();
}

/**
 * Messages between the tabs (and windows) of one app in one browser profile, which share the endpoint's session
 * cookie: a `BroadcastChannel` where the browser has one, else `storage` events of `localStorage` (a message is
 * written to a key and removed at once; the other tabs see the write). Nothing is looked up before `openTabChannel`
 * is called, so importing this module touches no browser global.
 *
 * Every message carries a `Stamp`, and a tab applies a message only when it is newer than the state it shows (see
 * README, "Every tab"): a late message never undoes a newer state.
 */
import type { ChainType, SessionEndReason, User } from './types.js';

/**
 * When a state was made, ordered the same way in every tab: by `t` (a hybrid logical clock: `Date.now()`, but
 * never less than one more than any stamp the tab has seen), then `tab` (the id of the tab that made it), then `n`
 * (1 for the report that the session stamped `t`/`tab` is gone, which comes after that session and before anything
 * later).
 */
export interface Stamp {
  t: number;
  tab: string;
  n: number;
}

/** Orders stamps: negative when `a` is older than `b`, 0 when equal, positive when newer. null is the oldest. */
export function compareStamps(a: Stamp | null | undefined, b: Stamp | null | undefined): number {
  if (!a || !b) return (a ? 1 : 0) - (b ? 1 : 0);
  if (a.t !== b.t) return a.t < b.t ? -1 : 1;
  if (a.tab !== b.tab) return a.tab < b.tab ? -1 : 1;
  return a.n - b.n;
}

/** A session as the tabs share it: never a token. The times are this browser's (`Date.now()` scale). */
export interface SharedSession {
  /** The session's identity: the stamp of its sign-in. */
  sid: Stamp;
  user: User;
  chain?: ChainType;
  address?: string;
  chainId?: number;
  expiresAt?: number;
  maxExpiresAt?: number;
}

/** What one tab tells the others. */
export type TabMessage =
  /** A session started (`stamp` = its `sid`) or changed (its user, or when it ends) at `stamp`. */
  | { type: 'session'; stamp: Stamp; session: SharedSession }
  /**
   * The sending tab signed out at `stamp` (or ended the session for another wallet account or chain): the cookie
   * is cleared, so every session stamped before `stamp` is over.
   */
  | { type: 'signedOut'; stamp: Stamp; reason: SessionEndReason }
  /** The session `sid` is gone: refused by the endpoint, or past its end. A newer session is not touched. */
  | { type: 'gone'; sid: Stamp; reason: SessionEndReason };

/** A channel to the other tabs. */
export interface TabChannel {
  post(message: TabMessage): void;
  close(): void;
}

/** The `BroadcastChannel` constructor shape used; inject one in tests (two configs with one channel act as two tabs). */
export type BroadcastChannelCtor = new (name: string) => {
  postMessage(message: unknown): void;
  close(): void;
  onmessage: ((event: { data: unknown }) => void) | null;
  unref?(): void;
};

interface StorageEventTarget {
  addEventListener(type: 'storage', listener: (event: { key: string | null; newValue: string | null }) => void): void;
  removeEventListener(type: 'storage', listener: (event: { key: string | null; newValue: string | null }) => void): void;
  localStorage?: { setItem(key: string, value: string): void; removeItem(key: string): void };
}

const REASONS: readonly SessionEndReason[] = ['signedOut', 'accountChanged', 'chainChanged', 'expired'];

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The stamp `value` holds, or null when it is not one. */
export function parseStamp(value: unknown): Stamp | null {
  if (!isObject(value) || !isTime(value.t) || typeof value.tab !== 'string' || value.tab.length > 64) return null;
  if (value.n !== 0 && value.n !== 1) return null;
  return { t: value.t, tab: value.tab, n: value.n };
}

/** The shared session `value` holds, or null when it is not one (its user needs an objectId). */
export function parseSharedSession(value: unknown): SharedSession | null {
  if (!isObject(value)) return null;
  const sid = parseStamp(value.sid);
  const user = value.user;
  if (!sid || !isObject(user) || typeof user.objectId !== 'string' || user.objectId === '') return null;
  const s: SharedSession = { sid, user: user as User };
  if (value.chain === 'evm' || value.chain === 'solana') s.chain = value.chain;
  if (typeof value.address === 'string' && value.address) s.address = value.address;
  if (typeof value.chainId === 'number' && Number.isSafeInteger(value.chainId)) s.chainId = value.chainId;
  if (isTime(value.expiresAt)) s.expiresAt = value.expiresAt;
  if (isTime(value.maxExpiresAt)) s.maxExpiresAt = value.maxExpiresAt;
  return s;
}

/**
 * The message carried by `data`, or null when it is not one (any same-origin script can post on the channel).
 * The message of an older version of the package (`{type: 'sessionEnded', reason, at}`) reads as a sign-out at
 * `at`.
 */
export function parseTabMessage(data: unknown): TabMessage | null {
  let value = data;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  if (!isObject(value)) return null;
  const reason = REASONS.includes(value.reason as SessionEndReason) ? (value.reason as SessionEndReason) : null;
  switch (value.type) {
    case 'session': {
      const stamp = parseStamp(value.stamp);
      const session = parseSharedSession(value.session);
      return stamp && session && compareStamps(stamp, session.sid) >= 0 ? { type: 'session', stamp, session } : null;
    }
    case 'signedOut': {
      const stamp = parseStamp(value.stamp);
      return stamp && reason ? { type: 'signedOut', stamp, reason } : null;
    }
    case 'gone': {
      const sid = parseStamp(value.sid);
      return sid && reason ? { type: 'gone', sid, reason } : null;
    }
    case 'sessionEnded':
      return reason && isTime(value.at) ? { type: 'signedOut', stamp: { t: value.at, tab: '', n: 0 }, reason } : null;
  }
  return null;
}

/**
 * Opens the channel `name` to the other tabs and calls `onMessage` with each well-formed message they post (never
 * with this tab's own). `BroadcastChannel` is the given constructor, else the global one; without either, `storage`
 * events of `window.localStorage` carry the messages. Returns undefined where neither exists (a server, a worker
 * without them).
 */
export function openTabChannel(
  name: string,
  onMessage: (message: TabMessage) => void,
  Broadcast: BroadcastChannelCtor | undefined = (globalThis as { BroadcastChannel?: BroadcastChannelCtor }).BroadcastChannel,
): TabChannel | undefined {
  if (Broadcast) {
    let channel: InstanceType<BroadcastChannelCtor>;
    try {
      channel = new Broadcast(name);
    } catch {
      return undefined;
    }
    channel.onmessage = (event) => {
      const m = parseTabMessage(event.data);
      if (m) onMessage(m);
    };
    // In Node an open channel keeps the process alive; a page's lifetime is the page's.
    channel.unref?.();
    return {
      post: (message) => {
        try {
          channel.postMessage(message);
        } catch {
          // closed: nothing to tell
        }
      },
      close: () => channel.close(),
    };
  }
  let target: StorageEventTarget | undefined;
  try {
    target = (globalThis as { window?: StorageEventTarget }).window;
    if (!target?.localStorage || typeof target.addEventListener !== 'function') return undefined;
  } catch {
    return undefined;
  }
  const win = target;
  const key = `${name}.tabMessage`;
  const listener = (event: { key: string | null; newValue: string | null }) => {
    if (event.key !== key || event.newValue == null) return;
    const m = parseTabMessage(event.newValue);
    if (m) onMessage(m);
  };
  win.addEventListener('storage', listener);
  return {
    post: (message) => {
      try {
        // A nonce makes every write a change, so two equal messages both fire; removed at once, nothing stays.
        win.localStorage!.setItem(key, JSON.stringify({ ...message, nonce: Math.random() }));
        win.localStorage!.removeItem(key);
      } catch {
        // storage unavailable (privacy mode, quota): the other tabs learn at their next endpoint answer
      }
    },
    close: () => win.removeEventListener('storage', listener),
  };
}

/**
 * Messages between the tabs (and windows) of one app in one browser profile, which share the endpoint's session
 * cookie: a `BroadcastChannel` where the browser has one, else `storage` events of `localStorage` (a message is
 * written to a key and removed at once; the other tabs see the write). Nothing is looked up before `openTabChannel`
 * is called, so importing this module touches no browser global.
 */

/** What one tab tells the others. */
export interface TabMessage {
  /** The session of the sending tab ended (signed out, refused by the endpoint, or another wallet account). */
  type: 'sessionEnded';
  /** Why: the sending tab's `SessionEndReason`. */
  reason: 'signedOut' | 'accountChanged' | 'chainChanged' | 'expired';
  /** When the session ended (`Date.now()` of the sending tab): a session a receiving tab started later is kept. */
  at: number;
}

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

const REASONS: readonly TabMessage['reason'][] = ['signedOut', 'accountChanged', 'chainChanged', 'expired'];

/** The message carried by `data`, or null when it is not one (any same-origin script can post on the channel). */
export function parseTabMessage(data: unknown): TabMessage | null {
  let value = data;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  const m = value as Partial<TabMessage> | null;
  if (!m || typeof m !== 'object' || m.type !== 'sessionEnded') return null;
  if (!REASONS.includes(m.reason as TabMessage['reason'])) return null;
  if (typeof m.at !== 'number' || !Number.isFinite(m.at)) return null;
  return { type: 'sessionEnded', reason: m.reason as TabMessage['reason'], at: m.at };
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
        win.localStorage!.setItem(key, JSON.stringify({ ...message, n: Math.random() }));
        win.localStorage!.removeItem(key);
      } catch {
        // storage unavailable (privacy mode, quota): the other tabs learn at their next endpoint answer
      }
    },
    close: () => win.removeEventListener('storage', listener),
  };
}

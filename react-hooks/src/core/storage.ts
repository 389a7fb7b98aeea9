/** The subset of the Web Storage API the package uses; `localStorage`, `sessionStorage`, `cookieStorage` or your own. */
export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/**
 * JSON storage with a key prefix. Errors of the underlying storage (quota, privacy mode) are swallowed. The
 * backend is looked up on first use, never when the storage is made, so a config can be created during SSR.
 */
export interface Storage {
  /** Prefix put before every key, followed by a dot. */
  readonly key: string;
  getItem<T>(key: string): T | null;
  setItem(key: string, value: unknown): void;
  removeItem(key: string): void;
}

/** A storage that keeps nothing: the default when there is no `window.localStorage` (SSR, Node). */
export const noopStorage: StorageLike = {
  getItem: () => null,
  setItem: () => {},
  removeItem: () => {},
};

/** An in-memory storage, handy in tests. */
export function memoryStorage(): StorageLike & { readonly map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
  };
}

/** Options of `cookieStorage`. */
export interface CookieStorageOptions {
  /** Cookie lifetime in seconds; default 30 days. */
  maxAge?: number;
  /** Cookie path; default "/". */
  path?: string;
  /** Returns the `document` to use; default the global one, read at call time. */
  document?: () => { cookie: string } | undefined;
}

/** The largest cookie value written (browsers drop cookies over about 4 KiB); larger values are not stored. */
export const MAX_COOKIE_VALUE = 3800;

/**
 * A storage in `document.cookie` (SameSite=Lax, Secure on https), readable by the server on the next request:
 * with `ssr: true`, pass `cookieToInitialState(config, request.headers.cookie)` as `initialState` so the server
 * renders what the browser will hydrate with. The cookies carry the signed-in user and the wallet the session is
 * bound to, never a token (the session itself is the endpoint's HttpOnly cookie).
 */
export function cookieStorage(options: CookieStorageOptions = {}): StorageLike {
  const doc = options.document ?? (() => (globalThis as { document?: { cookie: string } }).document);
  const maxAge = options.maxAge ?? 30 * 24 * 3600;
  const path = options.path ?? '/';
  const secure = () => {
    const loc = (globalThis as { location?: { protocol?: string } }).location;
    return loc?.protocol === 'https:' ? '; Secure' : '';
  };
  return {
    getItem(key) {
      const d = doc();
      return d ? parseCookie(d.cookie, key) : null;
    },
    setItem(key, value) {
      const d = doc();
      const encoded = encodeURIComponent(value);
      if (!d || encoded.length > MAX_COOKIE_VALUE) return;
      d.cookie = `${encodeURIComponent(key)}=${encoded}; Path=${path}; Max-Age=${maxAge}; SameSite=Lax${secure()}`;
    },
    removeItem(key) {
      const d = doc();
      if (d) d.cookie = `${encodeURIComponent(key)}=; Path=${path}; Max-Age=0; SameSite=Lax${secure()}`;
    },
  };
}

/** Reads one cookie from a `Cookie` header (or `document.cookie`); null when absent or not decodable. */
export function parseCookie(header: string | null | undefined, name: string): string | null {
  if (!header) return null;
  const want = encodeURIComponent(name);
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    if (part.slice(0, i).trim() !== want) continue;
    try {
      return decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * Wraps a `StorageLike` with JSON encoding and a key prefix (default "moralis"). Without `storage`, the backend is
 * `window.localStorage` when present, else nothing; it is looked up on first use.
 */
export function createStorage(options: { storage?: StorageLike; key?: string } = {}): Storage {
  let backend: StorageLike | undefined = options.storage;
  const get = () => (backend ??= defaultBackend());
  const prefix = options.key ?? 'moralis';
  const full = (k: string) => `${prefix}.${k}`;
  return {
    key: prefix,
    getItem<T>(k: string): T | null {
      try {
        const raw = get().getItem(full(k));
        return raw == null ? null : (JSON.parse(raw) as T);
      } catch {
        return null;
      }
    },
    setItem(k, value) {
      try {
        get().setItem(full(k), JSON.stringify(value));
      } catch {
        // Storage full or unavailable: the state stays in memory only.
      }
    },
    removeItem(k) {
      try {
        get().removeItem(full(k));
      } catch {
        // ignore
      }
    },
  };
}

function defaultBackend(): StorageLike {
  try {
    const w = (globalThis as { window?: { localStorage?: StorageLike } }).window;
    return w?.localStorage ?? noopStorage;
  } catch {
    return noopStorage;
  }
}

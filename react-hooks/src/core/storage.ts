/** The subset of the Web Storage API the package uses; `localStorage`, `sessionStorage` or your own. */
export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** JSON storage with a key prefix. Errors of the underlying storage (quota, privacy mode) are swallowed. */
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

/** Wraps a `StorageLike` with JSON encoding and a key prefix (default "moralis"). */
export function createStorage(options: { storage?: StorageLike; key?: string } = {}): Storage {
  const backend = options.storage ?? defaultBackend();
  const prefix = options.key ?? 'moralis';
  const full = (k: string) => `${prefix}.${k}`;
  return {
    key: prefix,
    getItem<T>(k: string): T | null {
      try {
        const raw = backend.getItem(full(k));
        return raw == null ? null : (JSON.parse(raw) as T);
      } catch {
        return null;
      }
    },
    setItem(k, value) {
      try {
        backend.setItem(full(k), JSON.stringify(value));
      } catch {
        // Storage full or unavailable: the state stays in memory only.
      }
    },
    removeItem(k) {
      try {
        backend.removeItem(full(k));
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

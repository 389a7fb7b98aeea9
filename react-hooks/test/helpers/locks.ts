import type { LockManagerLike } from '../../src/index.js';

/**
 * An in-process Web Locks API: exclusive locks granted in the order they were asked for. Two configs given the same
 * one act as two tabs of one browser. `waiting(name)` counts the requests not granted yet.
 */
export function createLocks(): LockManagerLike & { waiting(name?: string): number } {
  const tails = new Map<string, Promise<void>>();
  const waiting = new Map<string, number>();
  const count = (name: string, d: number) => waiting.set(name, (waiting.get(name) ?? 0) + d);
  return {
    request<T>(name: string, _options: { signal?: AbortSignal }, callback: () => Promise<T>): Promise<T> {
      const before = tails.get(name) ?? Promise.resolve();
      let release!: () => void;
      tails.set(name, before.then(() => new Promise<void>((r) => (release = r))));
      count(name, 1);
      return before.then(async () => {
        count(name, -1);
        try {
          return await callback();
        } finally {
          release();
        }
      });
    },
    waiting: (name?: string) => (name ? (waiting.get(name) ?? 0) : [...waiting.values()].reduce((a, b) => a + b, 0)),
  };
}

/** A minimal observable state container used by the config; framework-free. */
export interface Store<T> {
  /** The current state; replaced (never mutated) on every change. */
  getState(): T;
  /** Shallow-merges a partial state (or the result of a function of the current state) and notifies listeners. */
  setState(update: Partial<T> | ((state: T) => Partial<T>)): void;
  /** Registers a listener called after every change; returns the function that removes it. */
  subscribe(listener: () => void): () => void;
}

/** Creates a store holding `initial`. Listeners run synchronously, in registration order. */
export function createStore<T extends object>(initial: T): Store<T> {
  let state = initial;
  const listeners = new Set<() => void>();
  return {
    getState: () => state,
    setState(update) {
      const patch = typeof update === 'function' ? update(state) : update;
      state = { ...state, ...patch };
      for (const l of [...listeners]) l();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

import { useSyncExternalStore } from 'react';
import type { Config, State } from '../core/config.js';

/**
 * Subscribes to a slice of the config's state; `select` must return a value that changes only with the state.
 * Server rendering and hydration read the state the server rendered with (creation + `initialState`), so the
 * first client render matches the server's markup whatever the browser has stored.
 */
export function useStoreState<T>(config: Config, select: (state: State) => T): T {
  return useSyncExternalStore(
    config.store.subscribe,
    () => select(config.store.getState()),
    () => select(config._internal.serverState),
  );
}

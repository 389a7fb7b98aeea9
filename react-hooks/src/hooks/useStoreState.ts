import { useSyncExternalStore } from 'react';
import type { Config, State } from '../core/config.js';

/** Subscribes to a slice of the config's state; `select` must return a value that changes only with the state. */
export function useStoreState<T>(config: Config, select: (state: State) => T): T {
  const get = () => select(config.store.getState());
  return useSyncExternalStore(config.store.subscribe, get, get);
}

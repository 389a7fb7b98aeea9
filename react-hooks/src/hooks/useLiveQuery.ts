import { useEffect, useState } from 'react';
import { watchLiveQuery, type LiveObject, type LiveQueryParameters, type LiveQueryState } from '../core/actions/liveQuery.js';
import { useConfig, type ConfigParameter } from './useConfig.js';

/** Parameters of `useLiveQuery`. */
export interface UseLiveQueryParameters<T extends LiveObject> extends LiveQueryParameters<T>, ConfigParameter {
  /** Set false to not subscribe; default true. */
  enabled?: boolean;
}

/**
 * A live list of the objects of a class matching `where`, kept up to date by server-sent events. Each (re)connected
 * stream starts with a snapshot of the result set, so the list converges after a dropped connection.
 */
export function useLiveQuery<T extends LiveObject = LiveObject>(parameters: UseLiveQueryParameters<T>): LiveQueryState<T> {
  const config = useConfig(parameters);
  const [state, setState] = useState<LiveQueryState<T>>({
    objects: parameters.initialObjects ?? [],
    status: 'idle',
    error: null,
    lastEvent: null,
    lastEventId: null,
  });
  const { className, EventSource, enabled = true } = parameters;
  const whereKey = JSON.stringify(parameters.where ?? null);
  useEffect(() => {
    if (!enabled) return;
    const where = JSON.parse(whereKey) ?? undefined;
    return watchLiveQuery<T>(config, { className, where, EventSource, initialObjects: parameters.initialObjects }, setState);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- initialObjects only seeds the list
  }, [config, className, whereKey, EventSource, enabled]);
  return state;
}

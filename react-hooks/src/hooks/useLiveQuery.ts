import { useEffect, useState } from 'react';
import { watchLiveQuery, type LiveObject, type LiveQueryParameters, type LiveQueryState } from '../core/actions/liveQuery.js';
import { useConfig, type ConfigParameter } from './useConfig.js';
import { useStoreState } from './useStoreState.js';

/** Parameters of `useLiveQuery`. */
export interface UseLiveQueryParameters<T extends LiveObject> extends LiveQueryParameters<T>, ConfigParameter {
  /** Set false to not subscribe; default true. */
  enabled?: boolean;
  /**
   * Subscribe only while someone is signed in (the endpoint's stream needs a session); default true. With false
   * the stream also opens while signed out.
   */
  requireSession?: boolean;
}

/**
 * A live list of the objects of a class matching `where`, kept up to date by server-sent events. Each (re)connected
 * stream starts with a snapshot of the result set, so the list converges after a dropped connection.
 *
 * The stream belongs to a session: when the session changes (sign-in, sign-out, account or chain switch) the old
 * stream is closed, the list is cleared (back to `initialObjects`) and, if someone is signed in, a new stream opens
 * with the new session's cookie. One user's objects are never shown to the next.
 */
export function useLiveQuery<T extends LiveObject = LiveObject>(parameters: UseLiveQueryParameters<T>): LiveQueryState<T> {
  const config = useConfig(parameters);
  const idle = (): LiveQueryState<T> => ({
    objects: parameters.initialObjects ?? [],
    status: 'idle',
    error: null,
    lastEvent: null,
    lastEventId: null,
  });
  const [state, setState] = useState<LiveQueryState<T>>(idle);
  const { className, EventSource, enabled = true, requireSession = true } = parameters;
  const sessionId = useStoreState(config, (s) => s.sessionId);
  const signedIn = useStoreState(config, (s) => s.session !== null);
  const active = enabled && (signedIn || !requireSession);
  const whereKey = JSON.stringify(parameters.where ?? null);
  useEffect(() => {
    if (!active) {
      setState(idle());
      return;
    }
    const where = JSON.parse(whereKey) ?? undefined;
    return watchLiveQuery<T>(config, { className, where, EventSource, initialObjects: parameters.initialObjects }, setState);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- initialObjects only seeds the list
  }, [config, className, whereKey, EventSource, active, sessionId]);
  return state;
}

import { EndpointError, MoralisError } from '../../errors/index.js';
import type { Config, EventSourceCtor, EventSourceLike } from '../config.js';
import type { Status } from '../types.js';
import { INVALID_SESSION_TOKEN } from '../client.js';
import { fetchUser } from './auth.js';
import { sessionGone } from './session.js';

/** How long a live stream closed for good waits for another tab's news (a sign-out there) before asking /me. */
export const STREAM_CLOSED_CHECK_MS = 250;

/** The server-sent event names of the live endpoint. */
export const LIVE_EVENTS = ['create', 'enter', 'update', 'leave', 'delete'] as const;
/** One of the live event names. */
export type LiveEventName = (typeof LIVE_EVENTS)[number];

/** An object of a live query: any JSON object with an objectId. */
export interface LiveObject {
  objectId: string;
  [field: string]: unknown;
}

/** Options of `watchLiveQuery`. */
export interface LiveQueryParameters<T extends LiveObject = LiveObject> {
  /** Class name, e.g. "Message". */
  className: string;
  /** Parse-style conditions, sent as JSON in the `where` parameter. */
  where?: Record<string, unknown>;
  /** Objects to start from (e.g. the result of a first query). */
  initialObjects?: T[];
  /** The EventSource constructor; default the config's, else `globalThis.EventSource`. */
  EventSource?: EventSourceCtor;
}

/** The state a live query reports on every change. */
export interface LiveQueryState<T extends LiveObject = LiveObject> {
  objects: T[];
  status: Status;
  error: Error | null;
  lastEvent: { name: LiveEventName; object: T; original?: T } | null;
  /**
   * The id of the last event applied (the endpoint gives every event one: a number, or `<journal>/<entry>` when it
   * journals in Redis). The browser's EventSource sends it back as `Last-Event-ID` when it reconnects; null before
   * the first event and after a resync.
   */
  lastEventId: string | null;
}

/** Builds `{endpoint}/live?class=...&where=...`. */
export function liveQueryUrl(endpoint: string, className: string, where?: Record<string, unknown>): string {
  let url = `${endpoint}/live?class=${encodeURIComponent(className)}`;
  if (where !== undefined) url += `&where=${encodeURIComponent(JSON.stringify(where))}`;
  return url;
}

/**
 * Subscribes to the endpoint's server-sent events for a class and keeps the list of matching objects. A new stream
 * starts with a `snapshot` event `{ objects: [...] }`, the whole result set at that moment, which replaces the list;
 * then create/enter add (or replace) an object, update replaces it, leave/delete remove it. After a dropped
 * connection the browser's EventSource reconnects by itself, sending the last event id as `Last-Event-ID` (the
 * hook keeps the same EventSource for that, and never reopens one on a transient error). Then either:
 * - the endpoint has no journal (one process): the new stream starts with a fresh snapshot, so the list converges to
 *   the server's, whatever changed during the gap;
 * - the endpoint journals its streams in Redis (any instance resumes): the new stream sends no snapshot, only every
 *   event after that id, each once and in order, applied to the list as it is;
 * - the id is too old (past the journal's retention) or unknown: a `resync` event `{ reason }` comes first, then a
 *   fresh snapshot. On resync the status goes back to 'pending' and events before that snapshot are ignored: the
 *   list is stale until the snapshot replaces it.
 *
 * Status is 'pending' until the stream opens or while it reconnects or resyncs, 'success' while open, 'error' once
 * closed for good. Returns the function that closes it.
 *
 * The stream is opened with the current session. A server `error` event with Parse code 209 (the session is gone)
 * ends that session at once; a stream the browser closes for good (EventSource hides the HTTP status: 401, 429,
 * 503...) has the endpoint asked (`/me`) whether the session is still there, and a 401 ends it.
 */
export function watchLiveQuery<T extends LiveObject = LiveObject>(
  config: Config,
  parameters: LiveQueryParameters<T>,
  onChange: (state: LiveQueryState<T>) => void,
): () => void {
  const Ctor =
    parameters.EventSource ??
    config.EventSource ??
    ((globalThis as { EventSource?: EventSourceCtor }).EventSource as EventSourceCtor | undefined);
  let state: LiveQueryState<T> = {
    objects: [...(parameters.initialObjects ?? [])],
    status: 'pending',
    error: null,
    lastEvent: null,
    lastEventId: null,
  };
  const update = (patch: Partial<LiveQueryState<T>>) => {
    state = { ...state, ...patch };
    onChange(state);
  };
  if (!Ctor) {
    update({ status: 'error', error: new MoralisError('EventSource is not available') });
    return () => {};
  }
  const sessionId = config.store.getState().sessionId;
  const source: EventSourceLike = new Ctor(liveQueryUrl(config.endpoint, parameters.className, parameters.where), {
    withCredentials: true,
  });
  // Set by a resync event: the list is stale and only the snapshot that follows may change it.
  let resyncing = false;
  const listeners: [string, (e: MessageEvent) => void][] = LIVE_EVENTS.map((name) => [
    name,
    (e: MessageEvent) => {
      if (resyncing) return;
      let payload: { object?: T; original?: T };
      try {
        payload = JSON.parse(String(e.data));
      } catch (cause) {
        update({ error: new MoralisError('Invalid live query event', { details: name, cause }) });
        return;
      }
      const object = payload.object;
      if (!object || typeof object.objectId !== 'string') return;
      const rest = state.objects.filter((o) => o.objectId !== object.objectId);
      const objects = name === 'leave' || name === 'delete' ? rest : replaceOrAppend(state.objects, object);
      update({
        objects,
        status: 'success',
        lastEvent: { name, object, original: payload.original },
        lastEventId: e.lastEventId || state.lastEventId,
      });
    },
  ]);
  // The result set at the start of each (re)connected stream: it replaces the list.
  listeners.push([
    'snapshot',
    (e: MessageEvent) => {
      let payload: { objects?: unknown };
      try {
        payload = JSON.parse(String(e.data));
      } catch (cause) {
        update({ error: new MoralisError('Invalid live query event', { details: 'snapshot', cause }) });
        return;
      }
      if (!Array.isArray(payload.objects)) return;
      const objects = (payload.objects as T[]).filter((o) => o && typeof o.objectId === 'string');
      resyncing = false;
      update({ objects, status: 'success', error: null, lastEventId: e.lastEventId || state.lastEventId });
    },
  ]);
  // The endpoint could not resume from Last-Event-ID (past its journal's retention): a fresh snapshot follows.
  listeners.push([
    'resync',
    () => {
      resyncing = true;
      update({ status: 'pending', lastEventId: null });
    },
  ]);
  for (const [name, l] of listeners) source.addEventListener(name, l);
  // A server-side error sent as a named "error" event with JSON {code, error}.
  const onServerError = (e: MessageEvent) => {
    if (typeof e.data !== 'string') return;
    try {
      const body = JSON.parse(e.data) as { code?: number; error?: string; reason?: string };
      if (typeof body.error === 'string') {
        source.close();
        update({ status: 'error', error: new EndpointError(body.error, body.code ?? 0, 0) });
        // A sign-out (in another tab, or anywhere this session's cookie is) ends the stream with reason 'signedOut'.
        if (body.code === INVALID_SESSION_TOKEN) sessionGone(config, sessionId, '/live', body.reason);
      }
    } catch {
      // not a JSON payload: a transport error, handled by onerror
    }
  };
  source.addEventListener('error', onServerError);
  source.onopen = () => update({ status: 'success', error: null });
  let check: ReturnType<typeof setTimeout> | undefined;
  source.onerror = () => {
    if (state.status === 'error') return;
    if (source.readyState === 2) {
      update({ status: 'error', error: new MoralisError('Live query connection closed') });
      // Refused for good: if it was for the session, /me says so (a 401 there ends the session at once). The
      // endpoint's Live ends a stream whose session signed out with an error event saying so (above); a stream served
      // otherwise (GuardLive, an older endpoint) just closes, while the tab that signed out tells this one: its
      // message usually lands within a few ms, so /me is asked only if the session is still shown after
      // STREAM_CLOSED_CHECK_MS.
      check = setTimeout(() => {
        const s = config.store.getState();
        if (s.session && s.sessionId === sessionId) fetchUser(config).catch(() => {});
      }, STREAM_CLOSED_CHECK_MS);
    } else update({ status: 'pending' });
  };
  onChange(state);
  return () => {
    clearTimeout(check);
    source.onopen = null;
    source.onerror = null;
    for (const [name, l] of listeners) source.removeEventListener?.(name, l);
    source.removeEventListener?.('error', onServerError);
    source.close();
  };
}

function replaceOrAppend<T extends LiveObject>(objects: T[], object: T): T[] {
  const i = objects.findIndex((o) => o.objectId === object.objectId);
  if (i < 0) return [...objects, object];
  const next = objects.slice();
  next[i] = object;
  return next;
}

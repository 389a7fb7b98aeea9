import { QueryClient, QueryClientContext, useQuery, type QueryKey, type UseQueryOptions, type UseQueryResult } from '@tanstack/react-query';
import { useContext } from 'react';
import type { Config } from '../core/config.js';
import { EndpointError, MoralisError } from '../errors/index.js';
import { useStoreState } from './useStoreState.js';

/**
 * Query options a data hook passes through to TanStack Query (`enabled`, `staleTime`, `refetchInterval`, `select`,
 * `gcTime`, ...). The key and the query function are the hook's.
 */
export type QueryParameter<TData, TSelected = TData> = {
  query?: Omit<UseQueryOptions<TData, Error, TSelected, QueryKey>, 'queryKey' | 'queryFn'>;
  /** The QueryClient; default the one of a `QueryClientProvider` above, else one per config. */
  queryClient?: QueryClient;
};

/** JSON key hashing that accepts bigint (contract arguments) and sorts object keys, as TanStack's default does. */
export function hashQueryKey(key: QueryKey): string {
  return JSON.stringify(key, (_k, v) => {
    if (typeof v === 'bigint') return `${v.toString()}n`;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.keys(v)
        .sort()
        .reduce<Record<string, unknown>>((o, k) => ((o[k] = (v as Record<string, unknown>)[k]), o), {});
    }
    return v;
  });
}

/** Retries only what may succeed on a retry: no 4xx answer (bad input, no session, rate limit), no typed refusal. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (failureCount >= 2) return false;
  if (error instanceof EndpointError) return error.status === 0 || error.status >= 500;
  return !(error instanceof MoralisError);
}

const defaults = new WeakMap<Config, QueryClient>();
const watched = new WeakMap<QueryClient, WeakSet<Config>>();

/**
 * Drops the cached data of ended sessions from `client` as soon as the config's session changes, so one user's
 * data never stays in memory (nor shows up) for the next. Once per (client, config).
 */
function watchSessions(client: QueryClient, config: Config) {
  let set = watched.get(client);
  if (!set) watched.set(client, (set = new WeakSet()));
  if (set.has(config)) return;
  set.add(config);
  // A receipt (refreshChainData): this client's chain-data queries of the config are refetched.
  config._internal.chainDataListeners.add(() => {
    void client.invalidateQueries({
      predicate: (q) => q.queryKey[0] === 'moralis' && q.queryKey[1] === config._internal.id && q.queryKey[2] === 'session' && q.queryKey[4] === 'chain',
    });
  });
  let last = config.store.getState().sessionId;
  config.store.subscribe(() => {
    const id = config.store.getState().sessionId;
    if (id === last) return;
    last = id;
    client.removeQueries({
      predicate: (q) => q.queryKey[0] === 'moralis' && q.queryKey[1] === config._internal.id && q.queryKey[2] === 'session' && q.queryKey[3] !== id,
    });
  });
}

/** The QueryClient of a data hook: the one given, else the context's, else one per config (created on first use). */
export function useMoralisQueryClient(config: Config, explicit?: QueryClient): QueryClient {
  const fromContext = useContext(QueryClientContext);
  let client = explicit ?? fromContext;
  if (!client) {
    client = defaults.get(config);
    if (!client) {
      client = new QueryClient({ defaultOptions: { queries: { retry: shouldRetry, staleTime: 15_000 } } });
      if (typeof window !== 'undefined') client.mount();
      defaults.set(config, client);
    }
  }
  watchSessions(client, config);
  return client;
}

/** `useQuery` with the package's key hashing, retry policy and QueryClient resolution. */
export function useConfigQuery<TData, TSelected = TData>(
  config: Config,
  key: QueryKey,
  queryFn: (context: { signal: AbortSignal }) => Promise<TData>,
  parameters: QueryParameter<TData, TSelected> & { enabled?: boolean },
): UseQueryResult<TSelected, Error> {
  const client = useMoralisQueryClient(config, parameters.queryClient);
  const { query = {} } = parameters;
  return useQuery(
    {
      retry: shouldRetry,
      ...query,
      queryKey: ['moralis', config._internal.id, ...key],
      queryFn: ({ signal }) => queryFn({ signal }),
      queryKeyHashFn: hashQueryKey,
      enabled: parameters.enabled === false ? false : (query.enabled ?? true),
    },
    client,
  );
}

/**
 * A query of the signed-in user's data, through the endpoint with the session cookie. Its key holds the session
 * id: a new session never sees the old one's data, and runs only while someone is signed in.
 */
export function useSessionQuery<TData, TSelected = TData>(
  config: Config,
  key: QueryKey,
  queryFn: (context: { signal: AbortSignal }) => Promise<TData>,
  parameters: QueryParameter<TData, TSelected>,
): UseQueryResult<TSelected, Error> {
  const sessionId = useStoreState(config, (s) => s.sessionId);
  const signedIn = useStoreState(config, (s) => s.session !== null);
  return useConfigQuery(config, ['session', sessionId, ...key], queryFn, { ...parameters, enabled: signedIn });
}

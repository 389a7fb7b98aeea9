import type { ChainDataKind, ChainDataQuery, RequestOptions } from '../client.js';
import type { Config } from '../config.js';

/** How many chain-data queries a config remembers the freshness of (beyond it, the record starts over). */
const SEEN_MAX = 1000;

/**
 * Tells the chain-data hooks of `config` that the chain has changed (a transaction was mined): their queries are
 * refetched now, and each one's next request asks the endpoint for a fresh answer (`Cache-Control: no-cache`)
 * rather than the one it cached (for up to 10 s by default). `waitForTransactionReceipt` (and so
 * `useWaitForTransactionReceipt`) calls it when a receipt is found; call it yourself after a change the app learns
 * of another way.
 */
export function refreshChainData(config: Config): void {
  const internal = config._internal;
  internal.chainDataGen++;
  for (const listener of [...internal.chainDataListeners]) listener();
}

/**
 * @internal `config.client.chainData`, asking for a fresh answer when the query `key` has not been answered since the
 * last refreshChainData.
 */
export async function fetchChainData<T>(config: Config, kind: ChainDataKind, query: ChainDataQuery, key: string, ro: RequestOptions = {}): Promise<T> {
  const internal = config._internal;
  const gen = internal.chainDataGen;
  const fresh = gen > 0 && (internal.chainDataSeen.get(key) ?? 0) < gen;
  const data = await config.client.chainData<T>(kind, query, { ...ro, fresh });
  if (internal.chainDataSeen.size >= SEEN_MAX && !internal.chainDataSeen.has(key)) internal.chainDataSeen.clear();
  if ((internal.chainDataSeen.get(key) ?? 0) < gen) internal.chainDataSeen.set(key, gen);
  return data;
}

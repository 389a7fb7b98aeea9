import type { UseQueryResult } from '@tanstack/react-query';
import type { BackendQuery, BackendQueryResult, ChainDataKind, ChainDataQuery } from '../core/client.js';
import { fetchChainData } from '../core/actions/chainData.js';
import { InvalidArgumentError } from '../errors/index.js';
import { hashQueryKey, useSessionQuery, type QueryParameter } from './query.js';
import { useConfig, type ConfigParameter } from './useConfig.js';
import { useStoreState } from './useStoreState.js';

/** Parameters of `useMoralisQuery`. */
export type UseMoralisQueryParameters<T, S = BackendQueryResult<T>> = BackendQuery & ConfigParameter & QueryParameter<BackendQueryResult<T>, S>;

/**
 * Objects of a backend class, queried by the endpoint with the signed-in user's session (`POST {endpoint}/data/query`),
 * cached and de-duplicated by TanStack Query. Runs only while someone is signed in; the data of a session is
 * dropped when it ends. `data` is `{ results, count? }`.
 */
export function useMoralisQuery<T = Record<string, unknown>, S = BackendQueryResult<T>>(
  parameters: UseMoralisQueryParameters<T, S>,
): UseQueryResult<S, Error> {
  const config = useConfig(parameters);
  const { className, where, order, limit, skip, keys, include, count } = parameters;
  const body: BackendQuery = { className, where, order, limit, skip, keys, include, count };
  return useSessionQuery(
    config,
    ['query', body],
    ({ signal }) => {
      if (typeof className !== 'string' || className === '') throw new InvalidArgumentError('className is required');
      return config.client.query<T>(body, { signal });
    },
    parameters,
  );
}

/** Parameters of `useCloudFunction`. */
export type UseCloudFunctionParameters<T, S = T> = {
  name: string;
  params?: Record<string, unknown>;
} & ConfigParameter &
  QueryParameter<T, S>;

/** The result of a cloud function run with the signed-in user's session (`POST {endpoint}/data/function`). */
export function useCloudFunction<T = unknown, S = T>(parameters: UseCloudFunctionParameters<T, S>): UseQueryResult<S, Error> {
  const config = useConfig(parameters);
  const { name, params } = parameters;
  return useSessionQuery(
    config,
    ['function', name, params ?? {}],
    ({ signal }) => {
      if (typeof name !== 'string' || name === '') throw new InvalidArgumentError('name is required');
      return config.client.callFunction<T>(name, params, { signal });
    },
    parameters,
  );
}

/** Parameters of the chain-data hooks. */
export type UseChainDataParameters<T, S = T> = ChainDataQuery & ConfigParameter & QueryParameter<T, S>;

function useChainData<T, S>(kind: ChainDataKind, parameters: UseChainDataParameters<T, S>): UseQueryResult<S, Error> {
  const config = useConfig(parameters);
  const walletChain = useStoreState(config, (s) => (s.wallet.chainType === 'evm' ? s.wallet.chainId : null));
  // Default chain: the wallet's, else the endpoint's default. Default address (server side): the user's own.
  const q: ChainDataQuery = { chain: parameters.chain ?? walletChain ?? undefined, address: parameters.address, cursor: parameters.cursor, limit: parameters.limit };
  // After a receipt (refreshChainData) the query is refetched, and asks the endpoint to bypass its cache once.
  return useSessionQuery(
    config,
    ['chain', kind, q],
    ({ signal }) => fetchChainData<T>(config, kind, q, hashQueryKey([kind, q]), { signal }),
    parameters,
  );
}

/** Native balance `{ balance }` (wei, decimal string) of the user's address, or `address`, on the wallet's chain. */
export function useNativeBalance<S = { balance: string }>(parameters: UseChainDataParameters<{ balance: string }, S> = {}) {
  return useChainData<{ balance: string }, S>('balance', parameters);
}

/** A token balance as the chain-data API gives it. */
export interface TokenBalance {
  token_address: string;
  name?: string;
  symbol?: string;
  decimals?: number | string;
  balance: string;
  [field: string]: unknown;
}

/** ERC-20 balances of the user's address (or `address`). */
export function useTokenBalances<S = TokenBalance[]>(parameters: UseChainDataParameters<TokenBalance[], S> = {}) {
  return useChainData<TokenBalance[], S>('tokens', parameters);
}

/** A page of a chain-data listing. */
export interface Page<T> {
  result: T[];
  cursor?: string | null;
  page?: number;
  page_size?: number;
  total?: number | null;
  [field: string]: unknown;
}

/** NFTs owned by the user's address (or `address`), one page (`cursor`, `limit`). */
export function useNFTs<T = Record<string, unknown>, S = Page<T>>(parameters: UseChainDataParameters<Page<T>, S> = {}) {
  return useChainData<Page<T>, S>('nfts', parameters);
}

/** Native transactions of the user's address (or `address`), one page (`cursor`, `limit`). */
export function useTransactions<T = Record<string, unknown>, S = Page<T>>(parameters: UseChainDataParameters<Page<T>, S> = {}) {
  return useChainData<Page<T>, S>('transactions', parameters);
}

import type { UseQueryResult } from '@tanstack/react-query';
import {
  readContract,
  waitForTransactionReceipt,
  writeContract,
  type ContractCallParameters,
  type TransactionReceipt,
  type WriteContractParameters,
} from '../core/actions/contract.js';
import { useConfigQuery, type QueryParameter } from './query.js';
import { useConfig, type ConfigParameter } from './useConfig.js';
import { useMutation } from './useMutation.js';
import { useStoreState } from './useStoreState.js';

/** Parameters of `useReadContract`: the call, `config`, and TanStack options under `query`. */
export type UseReadContractParameters<T, S = T> = Partial<ContractCallParameters> & ConfigParameter & QueryParameter<T, S>;

/**
 * Reads a view function (`eth_call`, decoded with ethers), cached by TanStack Query under the chain, address,
 * function and arguments. Without `chainId` it follows the wallet's chain (re-read on a switch). Disabled until
 * `address`, `abi` and `functionName` are given.
 */
export function useReadContract<T = unknown, S = T>(parameters: UseReadContractParameters<T, S>): UseQueryResult<S, Error> {
  const config = useConfig(parameters);
  const walletChain = useStoreState(config, (s) => s.wallet.chainId);
  const account = useStoreState(config, (s) => s.wallet.account);
  const { address, abi, functionName, args, chainId } = parameters;
  return useConfigQuery(
    config,
    ['readContract', chainId ?? walletChain, account, address, functionName, args ?? []],
    () => readContract<T>(config, { address: address!, abi: abi!, functionName: functionName!, args: args ?? [], ...(chainId ? { chainId } : {}) }),
    { ...parameters, enabled: !!address && !!abi && !!functionName },
  );
}

/** Sends contract calls from the connected wallet (chain guard first). `data` is `{ hash }`. */
export function useWriteContract(parameters: ConfigParameter = {}) {
  const config = useConfig(parameters);
  const m = useMutation((p: WriteContractParameters) => writeContract(config, p));
  return { writeContract: m.mutate, writeContractAsync: m.mutateAsync, status: m.status, error: m.error, data: m.data, reset: m.reset };
}

/** Parameters of `useWaitForTransactionReceipt`. */
export type UseWaitForTransactionReceiptParameters<S = TransactionReceipt> = {
  hash?: string | undefined;
  confirmations?: number;
  timeoutMs?: number;
  pollingIntervalMs?: number;
  chainId?: number;
} & ConfigParameter &
  QueryParameter<TransactionReceipt, S>;

/** Waits for a transaction's receipt (polling); disabled until `hash` is given. A found receipt is kept. */
export function useWaitForTransactionReceipt<S = TransactionReceipt>(
  parameters: UseWaitForTransactionReceiptParameters<S>,
): UseQueryResult<S, Error> {
  const config = useConfig(parameters);
  const { hash, confirmations, timeoutMs, pollingIntervalMs, chainId } = parameters;
  return useConfigQuery(
    config,
    ['receipt', hash, confirmations ?? 1, chainId ?? null],
    ({ signal }) =>
      waitForTransactionReceipt(config, { hash: hash!, confirmations, timeoutMs, pollingIntervalMs, chainId, signal }),
    { ...parameters, query: { staleTime: Number.POSITIVE_INFINITY, retry: false, ...parameters.query }, enabled: !!hash },
  );
}

import { signTypedData, type SignTypedDataParameters } from '../core/actions/typedData.js';
import { useConfig, type ConfigParameter } from './useConfig.js';
import { useMutation } from './useMutation.js';

/**
 * Signs EIP-712 typed data with the connected EVM wallet (`eth_signTypedData_v4`), as wagmi's `useSignTypedData`.
 * `data` is `{ signature, hash, address }`; errors are typed (InvalidTypedDataError before any wallet request,
 * UserRejectedRequestError, ChainMismatchError, Web3NotEnabledError).
 */
export function useSignTypedData(parameters: ConfigParameter = {}) {
  const config = useConfig(parameters);
  const m = useMutation((p: SignTypedDataParameters) => signTypedData(config, p));
  return {
    signTypedData: m.mutate,
    signTypedDataAsync: m.mutateAsync,
    status: m.status,
    error: m.error,
    data: m.data,
    reset: m.reset,
  };
}

import { transfer, type TransferParameters } from '../core/actions/transfer.js';
import { useConfig, type ConfigParameter } from './useConfig.js';
import { useMutation } from './useMutation.js';

/** Sends native, ERC-20, ERC-721 or ERC-1155 transfers from the connected wallet. `data` is `{ hash }`. */
export function useTransfer(parameters: ConfigParameter = {}) {
  const config = useConfig(parameters);
  const m = useMutation((p: TransferParameters) => transfer(config, p));
  return { transfer: m.mutate, transferAsync: m.mutateAsync, status: m.status, error: m.error, data: m.data, reset: m.reset };
}

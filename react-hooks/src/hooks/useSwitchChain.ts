import { switchChain } from '../core/actions/wallet.js';
import { useConfig, type ConfigParameter } from './useConfig.js';
import { useMutation } from './useMutation.js';
import { useStoreState } from './useStoreState.js';

/** Asks the wallet to switch chains (adding a configured chain it does not know). `data` is the new chain id. */
export function useSwitchChain(parameters: ConfigParameter = {}) {
  const config = useConfig(parameters);
  const m = useMutation((p: { chainId: number }) => switchChain(config, p));
  return {
    switchChain: m.mutate,
    switchChainAsync: m.mutateAsync,
    chains: config.chains,
    status: m.status,
    error: m.error,
    data: m.data,
    reset: m.reset,
  };
}

/**
 * The chain guard for a page: whether the connected EVM wallet is on `chainId` (default: one of the config's
 * `chains`), with `switchChain()` to fix it. `isWrongChain` is false while no EVM wallet is connected. Writes check
 * again with the wallet itself (`assertChain`) before sending.
 */
export function useChainGuard(parameters: ConfigParameter & { chainId?: number } = {}) {
  const config = useConfig(parameters);
  const wallet = useStoreState(config, (s) => s.wallet);
  const s = useSwitchChain({ config });
  const expectedChainId = parameters.chainId ?? config.chains[0]?.id ?? null;
  const connected = wallet.chainType === 'evm' && wallet.account !== null;
  const allowed =
    parameters.chainId !== undefined
      ? wallet.chainId === parameters.chainId
      : config.chains.length === 0 || config.chains.some((c) => c.id === wallet.chainId);
  return {
    expectedChainId,
    currentChainId: wallet.chainId,
    isWrongChain: connected && !allowed,
    switchChain: () => (expectedChainId === null ? undefined : s.switchChain({ chainId: expectedChainId })),
    switchChainAsync: () => (expectedChainId === null ? Promise.resolve(wallet.chainId ?? 0) : s.switchChainAsync({ chainId: expectedChainId })),
    status: s.status,
    error: s.error,
  };
}

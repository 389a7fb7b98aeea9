import { connect, disconnect } from '../core/actions/wallet.js';
import type { Connector } from '../core/connectors/types.js';
import type { Status } from '../core/types.js';
import { useConfig, type ConfigParameter } from './useConfig.js';
import { useMutation } from './useMutation.js';
import { useStoreState } from './useStoreState.js';

/** The connected wallet and the functions to connect and disconnect it. */
export function useWallet(parameters: ConfigParameter = {}) {
  const config = useConfig(parameters);
  const wallet = useStoreState(config, (s) => s.wallet);
  const m = useMutation((p: { connector?: Connector } = {}) => connect(config, p));
  const status: Status = m.status === 'idle' || m.status === 'success' ? (wallet.account ? 'success' : 'idle') : m.status;
  const disconnectWallet = async () => {
    m.reset();
    await disconnect(config);
  };
  return {
    connect: m.mutate,
    connectAsync: m.mutateAsync,
    disconnect: disconnectWallet,
    status,
    error: m.error,
    account: wallet.account,
    chainId: wallet.chainId,
    chainType: wallet.chainType,
    connector: wallet.connector,
    connectors: config.connectors,
    isConnected: wallet.account !== null,
  };
}

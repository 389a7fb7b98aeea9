import { connect, disconnect, type ConnectParameters } from '../core/actions/wallet.js';
import type { Status } from '../core/types.js';
import { useConfig, type ConfigParameter } from './useConfig.js';
import { useMutation } from './useMutation.js';
import { useStoreState } from './useStoreState.js';

/**
 * The connected wallet, the connectors (configured and EIP-6963-discovered) and the functions to connect and
 * disconnect. `status` is the last connect's ('pending' / 'error'), else 'success' when connected and 'idle' when
 * not; `connectionStatus` is the wallet's own ('disconnected' | 'connecting' | 'reconnecting' | 'connected').
 */
export function useWallet(parameters: ConfigParameter = {}) {
  const config = useConfig(parameters);
  const wallet = useStoreState(config, (s) => s.wallet);
  const connectors = useStoreState(config, (s) => s.connectors);
  const m = useMutation((p: Omit<ConnectParameters, 'onlyIfTrusted'> = {}) => connect(config, p));
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
    connectionStatus: wallet.status,
    error: m.error,
    account: wallet.account,
    chainId: wallet.chainId,
    chainType: wallet.chainType,
    connector: wallet.connector,
    connectors,
    isConnected: wallet.account !== null,
    isReconnecting: wallet.status === 'reconnecting',
  };
}

import { createContext, useEffect, type ReactNode } from 'react';
import { reconnect } from '../core/actions/wallet.js';
import type { Config } from '../core/config.js';

/** The React context holding the config. Prefer `MoralisProvider` and `useConfig`. */
export const MoralisContext = createContext<Config | undefined>(undefined);

/** Props of `MoralisProvider`. */
export interface MoralisProviderProps {
  config: Config;
  /** Silently reconnect the wallet used last (trusted connect only) on mount; default true. */
  reconnectOnMount?: boolean;
  children?: ReactNode;
}

/** Makes `config` available to the hooks below it. */
export function MoralisProvider({ config, reconnectOnMount = true, children }: MoralisProviderProps) {
  useEffect(() => {
    if (reconnectOnMount) void reconnect(config);
  }, [config, reconnectOnMount]);
  return <MoralisContext.Provider value={config}>{children}</MoralisContext.Provider>;
}

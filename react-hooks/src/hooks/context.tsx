import { createContext, useEffect, type ReactNode } from 'react';
import { applyInitialState, hydrate } from '../core/actions/session.js';
import { reconnect } from '../core/actions/wallet.js';
import type { Config, InitialState } from '../core/config.js';
import { watchInjectedProviders } from '../core/connectors/eip6963.js';

/** The React context holding the config. Prefer `MoralisProvider` and `useConfig`. */
export const MoralisContext = createContext<Config | undefined>(undefined);

/** Props of `MoralisProvider`. */
export interface MoralisProviderProps {
  config: Config;
  /**
   * The state the server rendered with (`cookieToInitialState(config, cookieHeader)`), applied before the first
   * render on the server and on the client, so hydration matches. Only with `ssr: true`.
   */
  initialState?: InitialState;
  /** Silently reconnect the wallet used last (trusted connect only) on mount; default true. */
  reconnectOnMount?: boolean;
  children?: ReactNode;
}

/**
 * Makes `config` available to the hooks below it. On mount: reads the stored session (during the first render, or
 * after it with `ssr: true`), starts EIP-6963 discovery (unless turned off), then reconnects the last wallet; a
 * wallet that now reports another account than the session's ends that session.
 */
export function MoralisProvider({ config, initialState, reconnectOnMount = true, children }: MoralisProviderProps) {
  applyInitialState(config, initialState);
  if (!config.ssr && typeof window !== 'undefined') hydrate(config);
  useEffect(() => {
    hydrate(config);
    const stop = config.multiInjectedProviderDiscovery ? watchInjectedProviders(config) : undefined;
    if (reconnectOnMount) void reconnect(config);
    return () => stop?.();
  }, [config, reconnectOnMount]);
  return <MoralisContext.Provider value={config}>{children}</MoralisContext.Provider>;
}

import { useContext } from 'react';
import { hydrate } from '../core/actions/session.js';
import type { Config } from '../core/config.js';
import { ConfigNotFoundError } from '../errors/index.js';
import { MoralisContext } from './context.js';

/** Parameters every hook accepts: an explicit config wins over the provider's. */
export interface ConfigParameter {
  config?: Config;
}

/**
 * The config given as parameter, else the nearest `MoralisProvider`'s; throws ConfigNotFoundError when neither.
 * Without `ssr`, it reads the stored session on first use in the browser (as `MoralisProvider` does).
 */
export function useConfig(parameters: ConfigParameter = {}): Config {
  const fromContext = useContext(MoralisContext);
  const config = parameters.config ?? fromContext;
  if (!config) throw new ConfigNotFoundError();
  if (!config.ssr && typeof window !== 'undefined') hydrate(config);
  return config;
}

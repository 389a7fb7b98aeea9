import { useContext } from 'react';
import type { Config } from '../core/config.js';
import { ConfigNotFoundError } from '../errors/index.js';
import { MoralisContext } from './context.js';

/** Parameters every hook accepts: an explicit config wins over the provider's. */
export interface ConfigParameter {
  config?: Config;
}

/** The config given as parameter, else the nearest `MoralisProvider`'s; throws ConfigNotFoundError when neither. */
export function useConfig(parameters: ConfigParameter = {}): Config {
  const fromContext = useContext(MoralisContext);
  const config = parameters.config ?? fromContext;
  if (!config) throw new ConfigNotFoundError();
  return config;
}

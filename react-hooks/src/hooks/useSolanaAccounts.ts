import { linkSolana, unlinkSolana } from '../core/actions/auth.js';
import type { SolanaConnector } from '../core/connectors/types.js';
import { useConfig, type ConfigParameter } from './useConfig.js';
import { useMutation } from './useMutation.js';
import { useStoreState } from './useStoreState.js';

/** The signed-in user's linked Solana addresses, with `link` (Phantom signs a message) and `unlink(address)`. */
export function useSolanaAccounts(parameters: ConfigParameter & { connector?: SolanaConnector } = {}) {
  const config = useConfig(parameters);
  const user = useStoreState(config, (s) => s.session?.user ?? null);
  const m = useMutation((action: { link: true } | { unlink: string }) =>
    'link' in action ? linkSolana(config, { connector: parameters.connector }) : unlinkSolana(config, { address: action.unlink }),
  );
  return {
    accounts: user?.solAccounts ?? [],
    link: () => m.mutate({ link: true }),
    linkAsync: () => m.mutateAsync({ link: true }),
    unlink: (address: string) => m.mutate({ unlink: address }),
    unlinkAsync: (address: string) => m.mutateAsync({ unlink: address }),
    status: m.status,
    error: m.error,
  };
}

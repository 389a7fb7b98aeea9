import { signOut } from '../core/actions/auth.js';
import { useConfig, type ConfigParameter } from './useConfig.js';
import { useMutation } from './useMutation.js';

/** Signs out at the endpoint and forgets the session (the wallet stays connected). */
export function useSignOut(parameters: ConfigParameter = {}) {
  const config = useConfig(parameters);
  const m = useMutation(() => signOut(config));
  return { signOut: m.mutate, signOutAsync: m.mutateAsync, status: m.status, error: m.error, reset: m.reset };
}

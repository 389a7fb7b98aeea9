import { signIn, type SignInParameters } from '../core/actions/auth.js';
import { useConfig, type ConfigParameter } from './useConfig.js';
import { useMutation } from './useMutation.js';

/** Signs in with a wallet (Ethereum or Solana, following the connector). `data` is the signed-in user. */
export function useSignIn(parameters: ConfigParameter = {}) {
  const config = useConfig(parameters);
  const m = useMutation((p: SignInParameters = {}) => signIn(config, p));
  return { signIn: m.mutate, signInAsync: m.mutateAsync, status: m.status, error: m.error, data: m.data, reset: m.reset };
}

import { useEffect } from 'react';
import { fetchUser } from '../core/actions/auth.js';
import { useConfig, type ConfigParameter } from './useConfig.js';
import { useStoreState } from './useStoreState.js';

/** Parameters of `useSession` and `useUser`. */
export interface UseSessionParameters extends ConfigParameter {
  /** Ask the endpoint (`GET /me`) who is signed in when the component mounts; default true. */
  fetchOnMount?: boolean;
}

/**
 * The signed-in session (null when signed out), the status of the `/me` check, why the last session ended
 * (`endedReason`: 'accountChanged' | 'chainChanged' | 'signedOut' | 'expired' | null), and `refetch`.
 */
export function useSession(parameters: UseSessionParameters = {}) {
  const config = useConfig(parameters);
  const session = useStoreState(config, (s) => s.session);
  const status = useStoreState(config, (s) => s.sessionStatus);
  const error = useStoreState(config, (s) => s.sessionError);
  const endedReason = useStoreState(config, (s) => s.sessionEnded);
  const fetchOnMount = parameters.fetchOnMount ?? true;
  useEffect(() => {
    if (fetchOnMount && config.store.getState().sessionStatus === 'idle') fetchUser(config).catch(() => {});
  }, [config, fetchOnMount]);
  return { session, user: session?.user ?? null, status, error, endedReason, refetch: () => fetchUser(config) };
}

/** The signed-in user, or null. */
export function useUser(parameters: UseSessionParameters = {}) {
  const { user, status, error, endedReason, refetch } = useSession(parameters);
  return { user, isSignedIn: user !== null, status, error, endedReason, refetch };
}

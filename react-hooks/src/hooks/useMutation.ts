import { useCallback, useRef, useState } from 'react';
import type { Status } from '../core/types.js';

/** The state and functions of a mutation-style hook. */
export interface MutationResult<TArgs extends unknown[], TData> {
  /** Runs the action; errors land in `error` and `status`, never thrown. */
  mutate: (...args: TArgs) => void;
  /** Runs the action and returns its promise (rejects on error, also recorded in `error`). */
  mutateAsync: (...args: TArgs) => Promise<TData>;
  status: Status;
  data: TData | undefined;
  error: Error | null;
  /** Back to 'idle'. */
  reset: () => void;
}

/** Wraps an async action with a status. Only the last call's outcome is kept. */
export function useMutation<TArgs extends unknown[], TData>(
  fn: (...args: TArgs) => Promise<TData>,
): MutationResult<TArgs, TData> {
  const [state, setState] = useState<{ status: Status; data: TData | undefined; error: Error | null }>({
    status: 'idle',
    data: undefined,
    error: null,
  });
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const callId = useRef(0);
  const mutateAsync = useCallback(async (...args: TArgs) => {
    const id = ++callId.current;
    setState((s) => ({ ...s, status: 'pending', error: null }));
    try {
      const data = await fnRef.current(...args);
      if (id === callId.current) setState({ status: 'success', data, error: null });
      return data;
    } catch (err) {
      if (id === callId.current) setState({ status: 'error', data: undefined, error: err as Error });
      throw err;
    }
  }, []);
  const mutate = useCallback((...args: TArgs) => void mutateAsync(...args).catch(() => {}), [mutateAsync]);
  const reset = useCallback(() => {
    callId.current++;
    setState({ status: 'idle', data: undefined, error: null });
  }, []);
  return { mutate, mutateAsync, reset, ...state };
}

import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { MoralisProvider, type Config } from '../../src/index.js';

/** A renderHook wrapper: its own QueryClient (no retries) and the provider of `config`, without the silent reconnect. */
export function wrapperFor(config: Config) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>
      <MoralisProvider config={config} reconnectOnMount={false}>
        {children}
      </MoralisProvider>
    </QueryClientProvider>
  );
}

// Client entry of the demo: hydrates server-rendered markup (window.__MORALIS_SSR__ holds the server's initial
// state, see demo/server.tsx) or renders from scratch. Always under StrictMode.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { cookieStorage, MoralisProvider, type InitialState } from '../src/index.js';
import { App, makeConfig } from './App.js';

declare global {
  interface Window {
    __MORALIS_SSR__?: InitialState;
    __HYDRATION_ERRORS__?: string[];
  }
}

const ssrState = window.__MORALIS_SSR__;
const config = ssrState ? makeConfig({ ssr: true, storage: cookieStorage() }) : makeConfig();
const queryClient = new QueryClient();
const tree = (
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <MoralisProvider config={config} {...(ssrState ? { initialState: ssrState } : {})}>
        <App />
      </MoralisProvider>
    </QueryClientProvider>
  </StrictMode>
);
const root = document.getElementById('root')!;
if (ssrState) {
  window.__HYDRATION_ERRORS__ = [];
  hydrateRoot(root, tree, { onRecoverableError: (e) => window.__HYDRATION_ERRORS__!.push(String((e as Error)?.message ?? e)) });
} else {
  createRoot(root).render(tree);
}

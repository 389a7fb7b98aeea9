// Server entry of the demo (Node): renders the page for a request's Cookie header, with the state the browser
// will hydrate with. Used by the SSR hydration test (e2e/ssr.mjs).
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { cookieToInitialState, MoralisProvider, type InitialState } from '../src/index.js';
import { App, makeConfig } from './App.js';

/** Renders the demo for `cookieHeader`; the returned `initialState` goes into the page as window.__MORALIS_SSR__. */
export function renderPage(cookieHeader: string | undefined): { html: string; initialState: InitialState } {
  const config = makeConfig({ ssr: true });
  const initialState = cookieToInitialState(config, cookieHeader);
  const html = renderToString(
    <StrictMode>
      <QueryClientProvider client={new QueryClient()}>
        <MoralisProvider config={config} initialState={initialState}>
          <App />
        </MoralisProvider>
      </QueryClientProvider>
    </StrictMode>,
  );
  return { html, initialState };
}

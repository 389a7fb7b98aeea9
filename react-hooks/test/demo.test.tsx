import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFakeEndpoint } from './helpers/endpoint.js';
import { createFakeEip1193 } from './helpers/eip1193.js';
import { createFakePhantom } from './helpers/phantom.js';

// Runs the demo page (demo/main.tsx) in jsdom against the fake endpoint, with fake wallets in window.
describe('demo page', () => {
  afterEach(() => {
    delete (window as any).ethereum;
    delete (window as any).solana;
    document.body.innerHTML = '';
  });

  it('connect, sign in, link and unlink Solana, sign out', async () => {
    const endpoint = createFakeEndpoint('/auth');
    vi.stubGlobal('fetch', endpoint.fetch);
    const ethereum = createFakeEip1193({ trusted: false });
    const solana = createFakePhantom({ trusted: false });
    (window as any).ethereum = ethereum;
    (window as any).solana = solana;
    document.body.innerHTML = '<div id="root"></div>';
    await act(async () => {
      await import('../demo/main.js');
    });
    const text = (id: string) => screen.getByTestId(id).textContent;
    await waitFor(() => expect(text('status')).toBe('signed-out'));
    const eth = ethereum.wallet.address.toLowerCase();

    fireEvent.click(screen.getByTestId('connect'));
    await waitFor(() => expect(text('account')).toBe(eth));
    fireEvent.click(screen.getByTestId('signin'));
    await waitFor(() => expect(text('status')).toBe('signed-in'));
    expect(text('user-eth')).toBe(eth);

    fireEvent.click(screen.getByTestId('link-sol'));
    await waitFor(() => expect(text('user-sol')).toBe(solana.address));
    fireEvent.click(screen.getByTestId('unlink-sol'));
    await waitFor(() => expect(text('user-sol')).toBe(''));

    fireEvent.click(screen.getByTestId('signout'));
    await waitFor(() => expect(text('status')).toBe('signed-out'));
    expect(text('user-eth')).toBe('');
    expect(text('error')).toBe('');
    expect(endpoint.unexpected).toEqual([]);
    expect(endpoint.paths()).toEqual([
      'GET /me',
      'GET /message',
      'POST /signin',
      'GET /message',
      'POST /link',
      'POST /unlink',
      'POST /signout',
    ]);
    expect(endpoint.verified.map((v) => v.chain)).toEqual(['evm', 'solana']);
  });
});

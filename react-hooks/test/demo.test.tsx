import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { Wallet } from 'ethers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFakeEndpoint } from './helpers/endpoint.js';
import { createFakeEip1193 } from './helpers/eip1193.js';
import { createFakePhantom } from './helpers/phantom.js';
import { formatForReading } from '../demo/format.js';

// Runs the demo page (demo/main.tsx, under StrictMode) in jsdom against the fake endpoint, with fake wallets in
// window. The same page runs in Chromium against the real Go endpoint in e2e/run.mjs.
describe('formatForReading', () => {
  it('rounds half-up to 4 decimals, groups thousands, marks tiny amounts', () => {
    const cases: [string, string][] = [
      ['1.0', '1'],
      ['0.989979123456', '0.99'],
      ['0.99995', '1'],
      ['1234567.12345', '1,234,567.1235'],
      ['0.00004', '<0.0001'],
      ['0.00005', '0.0001'],
      ['0.0', '0'],
      ['-2.71828', '-2.7183'],
      ['115792089237316195423570985008687907853269984665640564039457.584007913129639935', '115,792,089,237,316,195,423,570,985,008,687,907,853,269,984,665,640,564,039,457.584'],
      ['not a number', 'not a number'],
    ];
    expect(cases.map(([v]) => formatForReading(v))).toEqual(cases.map(([, want]) => want));
    expect(formatForReading('2.345', 2)).toBe('2.35');
  });
});

describe('demo page', () => {
  afterEach(() => {
    delete (window as any).ethereum;
    delete (window as any).solana;
    delete (window as any).__DEMO_CHAINS__;
    document.body.innerHTML = '';
  });

  it('connect, sign in, balances, account switch, chain guard, Solana link/unlink, transfer, sign out', async () => {
    const endpoint = createFakeEndpoint('/auth');
    vi.stubGlobal('fetch', endpoint.fetch);
    const ethereum = createFakeEip1193({ trusted: false, chainId: 1337 });
    const solana = createFakePhantom({ trusted: false });
    (window as any).ethereum = ethereum;
    (window as any).solana = solana;
    (window as any).__DEMO_CHAINS__ = [{ id: 1337, name: 'Local' }];
    document.body.innerHTML = '<div id="root"></div>';
    await act(async () => {
      await import('../demo/main.js');
    });
    const text = (id: string) => screen.getByTestId(id).textContent;
    const has = (id: string) => screen.queryByTestId(id) !== null;
    await waitFor(() => expect(text('status')).toBe('signed-out'));
    const eth = ethereum.wallet.address.toLowerCase();
    // Signed out: only "Sign in" is offered; no sign-out, link, unlink nor transfer.
    const offered = () => ['signin', 'signout', 'link-sol', 'unlink-sol', 'transfer-send'].filter(has);
    expect(offered()).toEqual(['signin']);
    expect(has('transfer-signed-out')).toBe(true);

    fireEvent.click(screen.getByTestId('connect'));
    await waitFor(() => expect(text('account')).toBe(eth));
    expect(ethereum.count('eth_requestAccounts')).toBe(1);
    endpoint.balances.set(eth, '1234567891234567891234');
    fireEvent.click(screen.getByTestId('signin'));
    await waitFor(() => expect(text('status')).toBe('signed-in'));
    expect(text('user-eth')).toBe(eth);
    // Signed in: no "Sign in"; sign-out, link and the transfer form; unlink only once an address is linked.
    expect(offered()).toEqual(['signout', 'link-sol', 'transfer-send']);
    // The balance reads rounded; the exact value is the title and what a copy takes.
    await waitFor(() => expect(text('balance-native')).toBe('1,234.5679'));
    const balance = screen.getByTestId('balance-native');
    expect(balance.getAttribute('title')).toBe('1234.567891234567891234');
    const copied: string[] = [];
    fireEvent.copy(balance, { clipboardData: { setData: (type: string, v: string) => copied.push(`${type}:${v}`) } });
    expect(copied).toEqual(['text/plain:1234.567891234567891234']);

    // Another account in the wallet: signed out at once, and asked to sign in again.
    const other = Wallet.createRandom();
    act(() => ethereum.switchAccount(other));
    await waitFor(() => expect(text('account')).toBe(other.address.toLowerCase()));
    expect(text('user-eth')).toBe('');
    expect(text('status')).toBe('signed-out');
    expect(text('session-ended')).toMatch(/switched wallet account/);
    fireEvent.click(screen.getByTestId('signin'));
    await waitFor(() => expect(text('user-eth')).toBe(other.address.toLowerCase()));
    expect(has('session-ended')).toBe(false);

    // Another chain: signed out, the guard offers the switch back.
    act(() => ethereum.emit('chainChanged', '0x1'));
    await waitFor(() => expect(has('wrong-chain')).toBe(true));
    expect(text('status')).toBe('signed-out');
    expect(offered()).toEqual(['signin']);
    fireEvent.click(screen.getByTestId('switch-chain'));
    await waitFor(() => expect(text('chain')).toBe('1337'));
    expect(has('wrong-chain')).toBe(false);
    fireEvent.click(screen.getByTestId('signin'));
    await waitFor(() => expect(text('status')).toBe('signed-in'));

    fireEvent.click(screen.getByTestId('link-sol'));
    await waitFor(() => expect(text('user-sol')).toBe(solana.address));
    expect(offered()).toEqual(['signout', 'link-sol', 'unlink-sol', 'transfer-send']);
    // The Solana buttons are disabled while the link is still settling (the user shows before its status does).
    await waitFor(() => expect((screen.getByTestId('unlink-sol') as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(screen.getByTestId('unlink-sol'));
    await waitFor(() => expect(text('user-sol')).toBe(''));
    expect(has('unlink-sol')).toBe(false);

    const receiver = Wallet.createRandom().address;
    fireEvent.change(screen.getByTestId('transfer-to'), { target: { value: receiver } });
    fireEvent.change(screen.getByTestId('transfer-amount'), { target: { value: '0.25' } });
    fireEvent.click(screen.getByTestId('transfer-send'));
    await waitFor(() => expect(text('transfer-hash')).toMatch(/^0x[0-9a-f]{64}$/));
    expect(ethereum.sent.at(-1)).toMatchObject({ to: receiver.toLowerCase(), value: '0x' + (25n * 10n ** 16n).toString(16) });
    ethereum.mine(text('transfer-hash')!);
    await waitFor(() => expect(text('transfer-status')).toBe('confirmed'));

    fireEvent.click(screen.getByTestId('signout'));
    await waitFor(() => expect(text('status')).toBe('signed-out'));
    expect(offered()).toEqual(['signin']);
    expect(text('user-eth')).toBe('');
    expect(text('error')).toBe('');
    expect(endpoint.unexpected).toEqual([]);
    expect(endpoint.paths().filter((p) => !p.includes('/data/'))).toEqual([
      'GET /me',
      'GET /message',
      'POST /signin',
      'POST /signout',
      'GET /message',
      'POST /signin',
      'POST /signout',
      'GET /message',
      'POST /signin',
      'GET /message',
      'POST /link',
      'POST /unlink',
      'POST /signout',
    ]);
    expect(endpoint.verified.map((v) => v.chain)).toEqual(['evm', 'evm', 'evm', 'solana']);
  }, 60_000); // a long walk: seconds alone, more on a loaded machine
});

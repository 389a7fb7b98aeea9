// @vitest-environment node
import { describe, expect, it } from 'vitest';

describe('SSR (Node, no window)', () => {
  it('imports the package and renders without window', async () => {
    expect(typeof (globalThis as { window?: unknown }).window).toBe('undefined');
    const mod = await import('../src/index.js');
    const { createElement } = await import('react');
    const { renderToString } = await import('react-dom/server');
    const config = mod.createConfig({ connectors: [mod.injected(), mod.phantom(), mod.walletConnect({ projectId: 'p' })] });
    expect(config.store.getState().session).toBeNull();
    function Status() {
      const { status, account } = mod.useWallet();
      const { user } = mod.useUser({ fetchOnMount: false });
      return createElement('span', null, `${status}:${account}:${user}`);
    }
    const html = renderToString(createElement(mod.MoralisProvider, { config }, createElement(Status)));
    expect(html).toContain('idle:null:null');
    await expect(mod.injected().connect()).rejects.toThrow('Injected wallet not available');
    await expect(mod.phantom().connect()).rejects.toThrow('Phantom wallet not available');
  });

  it('ssr: renders the cookie state; createConfig and rendering read no storage', async () => {
    const mod = await import('../src/index.js');
    const { createElement } = await import('react');
    const { renderToString } = await import('react-dom/server');
    const reads: string[] = [];
    const storage = { getItem: (k: string) => (reads.push(k), null), setItem: () => {}, removeItem: () => {} };
    const config = mod.createConfig({ ssr: true, storage });
    const user = { objectId: 'u1', username: 'alice', ethAddress: '0xabc' };
    const cookie =
      'other=1; moralis.currentUser=' +
      encodeURIComponent(JSON.stringify(user)) +
      '; moralis.session=' +
      encodeURIComponent(JSON.stringify({ objectId: 'u1', address: '0xabc', chain: 'evm', chainId: 1 }));
    const initialState = mod.cookieToInitialState(config, cookie);
    expect(initialState).toEqual({ session: { user, address: '0xabc', chain: 'evm', chainId: 1 } });
    function Who() {
      const { user } = mod.useUser({ fetchOnMount: false });
      return createElement('b', null, user ? user.username : 'nobody');
    }
    const html = renderToString(createElement(mod.MoralisProvider, { config, initialState }, createElement(Who)));
    expect(html).toBe('<b>alice</b>');
    // The same config renders the next request's own state.
    const html2 = renderToString(
      createElement(mod.MoralisProvider, { config, initialState: mod.cookieToInitialState(config, '') }, createElement(Who)),
    );
    expect(html2).toBe('<b>nobody</b>');
    expect(reads).toEqual([]);
    // Malformed cookies give no session.
    expect(mod.cookieToInitialState(config, 'moralis.currentUser=%7Bnot-json')).toEqual({ session: null });
    expect(mod.cookieToInitialState(config, 'moralis.currentUser=' + encodeURIComponent('{"objectId":7}'))).toEqual({ session: null });
  });
});

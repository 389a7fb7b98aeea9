// @vitest-environment node
import { describe, expect, it } from 'vitest';

describe('SSR', () => {
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
});

import { describe, expect, it } from 'vitest';
import { createEndpointClient, EndpointError } from '../src/index.js';

function recorder(status: number, body: string) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetch = async (url: string, init: RequestInit = {}) => {
    calls.push({ url, init });
    return new Response(body, { status });
  };
  return { calls, fetch };
}

describe('endpoint client', () => {
  it('GETs the message with credentials included', async () => {
    const r = recorder(200, JSON.stringify({ message: 'm', nonce: 'n', expiresAt: '2026-01-01T00:00:00Z' }));
    const client = createEndpointClient({ baseUrl: '/auth/', fetch: r.fetch });
    const res = await client.getMessage('0xAbC', 'evm');
    expect(res).toEqual({ message: 'm', nonce: 'n', expiresAt: '2026-01-01T00:00:00Z' });
    expect(r.calls[0]!.url).toBe('/auth/message?address=0xAbC&chain=evm');
    expect(r.calls[0]!.init.method).toBe('GET');
    expect(r.calls[0]!.init.credentials).toBe('include');
  });

  it('POSTs JSON bodies', async () => {
    const r = recorder(200, JSON.stringify({ user: { objectId: 'u1', username: 'x' }, sessionToken: 't' }));
    const client = createEndpointClient({ baseUrl: 'https://api.test/auth', fetch: r.fetch });
    const body = { chain: 'evm' as const, address: '0xa', message: 'm', signature: '0xs' };
    await client.signIn(body);
    await client.link(body);
    await client.unlink({ chain: 'solana', address: 'So1' });
    await client.signOut();
    expect(r.calls.map((c) => c.url)).toEqual([
      'https://api.test/auth/signin',
      'https://api.test/auth/link',
      'https://api.test/auth/unlink',
      'https://api.test/auth/signout',
    ]);
    for (const c of r.calls) {
      expect(c.init.method).toBe('POST');
      expect(c.init.credentials).toBe('include');
      expect((c.init.headers as Record<string, string>)['Content-Type']).toBe('application/json');
    }
    expect(JSON.parse(r.calls[0]!.init.body as string)).toEqual(body);
    expect(JSON.parse(r.calls[2]!.init.body as string)).toEqual({ chain: 'solana', address: 'So1' });
  });

  it('turns {code, error} into EndpointError', async () => {
    const r = recorder(400, JSON.stringify({ code: 101, error: 'Invalid signature' }));
    const client = createEndpointClient({ baseUrl: '/auth', fetch: r.fetch });
    const err = await client.signIn({ chain: 'evm', address: 'a', message: 'm', signature: 's' }).catch((e) => e);
    expect(err).toBeInstanceOf(EndpointError);
    expect(err.name).toBe('EndpointError');
    expect([err.message, err.code, err.status]).toEqual(['Invalid signature', 101, 400]);
  });

  it('me() gives null on 401 and throws on 500', async () => {
    const unauth = createEndpointClient({ baseUrl: '/auth', fetch: recorder(401, '{"code":209,"error":"Invalid session token"}').fetch });
    expect(await unauth.me()).toBeNull();
    const broken = createEndpointClient({ baseUrl: '/auth', fetch: recorder(500, '{"code":1,"error":"Internal server error."}').fetch });
    await expect(broken.me()).rejects.toMatchObject({ name: 'EndpointError', code: 1, status: 500, message: 'Internal server error.' });
  });

  it('reports invalid JSON and network failures', async () => {
    const html = createEndpointClient({ baseUrl: '/auth', fetch: recorder(502, '<html>bad gateway</html>').fetch });
    await expect(html.me()).rejects.toMatchObject({
      message: 'Received an error with invalid JSON from Parse: <html>bad gateway</html>',
      status: 502,
    });
    const down = createEndpointClient({
      baseUrl: '/auth',
      fetch: async () => {
        throw new TypeError('Failed to fetch');
      },
    });
    await expect(down.signOut()).rejects.toMatchObject({ name: 'EndpointError', status: 0, code: 100, message: 'XMLHttpRequest failed: Failed to fetch' });
  });
});

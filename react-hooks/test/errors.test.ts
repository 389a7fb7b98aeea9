import { describe, expect, it, vi } from 'vitest';
import {
  AddressNotFoundError,
  ConfigNotFoundError,
  createConfig,
  DataNotSignedError,
  EndpointError,
  MoralisError,
  NoAccountError,
  SECRET_IN_BROWSER_MESSAGE,
  SecretInBrowserError,
  UserNotFoundError,
  WalletConnectError,
  Web3NotEnabledError,
} from '../src/index.js';

describe('errors', () => {
  it('have literal names, exact messages, details and cause', () => {
    const cause = new Error('inner');
    const cases: [MoralisError, string, string][] = [
      [new NoAccountError({ cause }), 'NoAccountError', 'Cannot authenticate, no account returned from provider'],
      [new DataNotSignedError(), 'DataNotSignedError', 'Data not signed'],
      [new AddressNotFoundError(), 'AddressNotFoundError', 'Address not found'],
      [new UserNotFoundError(), 'UserNotFoundError', 'Could not get user'],
      [new Web3NotEnabledError(), 'Web3NotEnabledError', 'Missing web3 instance, make sure to enable web3 or authenticate first'],
      [new WalletConnectError(), 'WalletConnectError', 'Could not connect via WalletConnect, error in connecting to provider'],
      [new SecretInBrowserError(), 'SecretInBrowserError', 'Moralis: It is not recommended to use your master key or secret in the browser'],
      [new ConfigNotFoundError(), 'ConfigNotFoundError', '`useConfig` must be used within `MoralisProvider` or be given a `config`'],
    ];
    for (const [err, name, message] of cases) {
      expect(err).toBeInstanceOf(MoralisError);
      expect(err).toBeInstanceOf(Error);
      expect(err.name).toBe(name);
      expect(err.message).toBe(message);
    }
    expect(cases[0]![0].cause).toBe(cause);
    const e = new EndpointError('Invalid session token', 209, 401, { details: 'GET /me' });
    expect([e.name, e.code, e.status, e.details]).toEqual(['EndpointError', 209, 401, 'GET /me']);
  });
});

describe('secret refusal', () => {
  for (const key of ['masterKey', 'secret', 'moralisSecret', 'apiKey']) {
    it(`refuses ${key} with the warning text`, () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      expect(() => createConfig({ [key]: 'shh' } as never)).toThrowError(SecretInBrowserError);
      expect(() => createConfig({ [key]: 'shh' } as never)).toThrowError(SECRET_IN_BROWSER_MESSAGE);
      expect(warn).toHaveBeenCalledWith('Moralis: It is not recommended to use your master key or secret in the browser');
      let err: unknown;
      try {
        createConfig({ [key]: 'shh' } as never);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(SecretInBrowserError);
      // the secret itself never appears in the error
      expect(JSON.stringify({ m: (err as Error).message, d: (err as MoralisError).details })).not.toContain('shh');
    });
  }
  it('accepts a config without secrets', () => {
    expect(createConfig({ endpoint: '/auth/' }).endpoint).toBe('/auth');
  });
});

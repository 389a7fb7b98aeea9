import { describe, expect, it, vi } from 'vitest';

// Simulates the optional peer dependency not being installed.
vi.mock('@walletconnect/ethereum-provider', () => {
  throw new Error("Cannot find package '@walletconnect/ethereum-provider'");
});

import { walletConnect, WalletConnectMissingError } from '../src/index.js';

describe('walletConnect without the package', () => {
  it('says to install @walletconnect/ethereum-provider', async () => {
    const err = await walletConnect({ projectId: 'proj' }).connect().catch((e) => e);
    expect(err).toBeInstanceOf(WalletConnectMissingError);
    expect(err.name).toBe('WalletConnectMissingError');
    expect(err.message).toContain('@walletconnect/ethereum-provider');
    expect(err.message).toContain('npm install');
  });
});

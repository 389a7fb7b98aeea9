import { encodeBase58 } from 'ethers';
import { AddressNotFoundError, DataNotSignedError, ProviderNotFoundError, toWalletError } from '../../errors/index.js';
import type { SolanaProvider } from '../types.js';
import { createEmitter, readWindow } from './shared.js';
import type { ConnectOptions, ConnectResult, SolanaConnector } from './types.js';

/** Options of `phantom()`. */
export interface PhantomOptions {
  /** Returns the provider; default `window.phantom.solana`, else `window.solana`, read at connect time. */
  target?: () => SolanaProvider | undefined;
}

/**
 * A connector for Phantom (Solana). `connect` tries `connect({ onlyIfTrusted: true })` first, then a full connect.
 * Signatures are base58. `signIn` uses the wallet-standard `solana:signIn` feature when the provider offers it
 * (`features['solana:signIn']`), and resolves with null otherwise.
 */
export function phantom(options: PhantomOptions = {}): SolanaConnector {
  const emitter = createEmitter();
  const getTarget =
    options.target ?? (() => readWindow<SolanaProvider>((w) => w.phantom?.solana ?? w.solana));
  let detach: (() => void) | undefined;

  function provider(): SolanaProvider {
    const p = getTarget();
    if (!p) throw new ProviderNotFoundError('Phantom wallet not available');
    return p;
  }

  function attach(p: SolanaProvider) {
    const onAccount = (publicKey: { toString(): string } | null | undefined) =>
      emitter.emit({ type: 'accountsChanged', accounts: publicKey ? [publicKey.toString()] : [] });
    const onDisconnect = () => emitter.emit({ type: 'disconnect' });
    p.on?.('accountChanged', onAccount);
    p.on?.('disconnect', onDisconnect);
    return () => {
      const off = (p.removeListener ?? p.off)?.bind(p);
      off?.('accountChanged', onAccount);
      off?.('disconnect', onDisconnect);
    };
  }

  return {
    id: 'phantom',
    name: 'Phantom',
    type: 'solana',
    async getProvider() {
      return provider();
    },
    async connect(opts: ConnectOptions = {}): Promise<ConnectResult> {
      const p = provider();
      let result: unknown;
      try {
        result = await p.connect({ onlyIfTrusted: true });
      } catch {
        if (opts.onlyIfTrusted) return { accounts: [] };
        try {
          result = await p.connect();
        } catch (err) {
          throw toWalletError(err);
        }
      }
      const key = (result as { publicKey?: { toString(): string } } | undefined)?.publicKey ?? p.publicKey;
      const address = key?.toString();
      if (!address) throw new AddressNotFoundError();
      detach?.();
      detach = attach(p);
      return { accounts: [address] };
    },
    async disconnect() {
      detach?.();
      detach = undefined;
      const p = getTarget();
      await p?.disconnect?.().catch(() => {});
    },
    async signMessage(message) {
      const p = provider();
      let res: Awaited<ReturnType<typeof p.signMessage>>;
      try {
        res = await p.signMessage(new TextEncoder().encode(message), 'utf8');
      } catch (err) {
        throw toWalletError(err);
      }
      const sig = res instanceof Uint8Array || ArrayBuffer.isView(res) ? (res as Uint8Array) : res?.signature;
      if (!sig || sig.length === 0) throw new DataNotSignedError();
      // Copy: the wallet's bytes may come from another realm (iframe, jsdom), which ethers rejects.
      return encodeBase58(Uint8Array.from(sig));
    },
    async signIn(input) {
      const feature = provider().features?.['solana:signIn'];
      if (!feature) return null;
      let out: Awaited<ReturnType<typeof feature.signIn>>[number] | undefined;
      try {
        [out] = await feature.signIn(input);
      } catch (err) {
        throw toWalletError(err);
      }
      if (!out?.signature?.length || !out.signedMessage || !out.account?.publicKey) throw new DataNotSignedError();
      return {
        // Copies: the wallet's bytes may come from another realm (iframe, jsdom), which ethers rejects.
        address: encodeBase58(Uint8Array.from(out.account.publicKey)),
        message: new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(out.signedMessage)),
        signature: encodeBase58(Uint8Array.from(out.signature)),
      };
    },
    subscribe: emitter.subscribe,
  };
}

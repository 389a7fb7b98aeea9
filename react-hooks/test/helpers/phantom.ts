import { ed25519 } from '@noble/curves/ed25519.js';
import bs58 from 'bs58';
import type { SolanaProvider } from '../../src/index.js';

export interface FakePhantomOptions {
  /** connect({onlyIfTrusted: true}) succeeds (the site is already trusted). */
  trusted?: boolean;
  /** Connect succeeds but no publicKey is set. */
  noPublicKey?: boolean;
  secretKey?: Uint8Array;
  /** Offer the wallet-standard solana:signIn feature; signInKey signs with another key than the connected one. */
  signInFeature?: boolean;
  signInKey?: Uint8Array;
}

/** The Sign-In with Solana text a wallet writes from its input (wallet-standard layout), for the fake wallet. */
export function siwsText(input: Record<string, unknown>): string {
  const str = (k: string) => (typeof input[k] === 'string' && input[k] !== '' ? (input[k] as string) : undefined);
  let text = `${str('domain')} wants you to sign in with your Solana account:\n${str('address')}`;
  if (str('statement')) text += `\n\n${str('statement')}`;
  const labels: [string, string][] = [['uri', 'URI'], ['version', 'Version'], ['chainId', 'Chain ID'], ['nonce', 'Nonce'],
    ['issuedAt', 'Issued At'], ['expirationTime', 'Expiration Time'], ['notBefore', 'Not Before'], ['requestId', 'Request ID']];
  const lines = labels.filter(([k]) => str(k)).map(([k, label]) => `${label}: ${str(k)}`);
  if (Array.isArray(input.resources)) lines.push('Resources:', ...input.resources.map((r) => `- ${r}`));
  if (lines.length) text += `\n\n${lines.join('\n')}`;
  return text;
}

export interface FakePhantom extends SolanaProvider {
  address: string;
  calls: { method: string; args: unknown[] }[];
  emit(event: string, ...args: unknown[]): void;
}

/** A Phantom-like provider with a real ed25519 key. */
export function createFakePhantom(options: FakePhantomOptions = {}): FakePhantom {
  const secretKey = options.secretKey ?? ed25519.utils.randomSecretKey();
  const publicKeyBytes = ed25519.getPublicKey(secretKey);
  const address = bs58.encode(publicKeyBytes);
  const key = { toString: () => address, toBytes: () => publicKeyBytes };
  const calls: FakePhantom['calls'] = [];
  const listeners = new Map<string, Set<(...args: any[]) => void>>();
  let connected = false;
  const provider: FakePhantom = {
    isPhantom: true,
    address,
    calls,
    publicKey: null,
    async connect(opts?: { onlyIfTrusted?: boolean }) {
      calls.push({ method: 'connect', args: [opts] });
      if (opts?.onlyIfTrusted && !options.trusted) throw Object.assign(new Error('User rejected the request.'), { code: 4001 });
      connected = true;
      if (options.noPublicKey) return {};
      provider.publicKey = key;
      return { publicKey: key };
    },
    async disconnect() {
      calls.push({ method: 'disconnect', args: [] });
      connected = false;
      provider.publicKey = null;
    },
    async signMessage(message: Uint8Array, display?: 'utf8' | 'hex') {
      calls.push({ method: 'signMessage', args: [message, display] });
      if (!connected) throw new Error('not connected');
      return { signature: ed25519.sign(new Uint8Array(message), secretKey), publicKey: key };
    },
    ...(options.signInFeature
      ? {
          features: {
            'solana:signIn': {
              async signIn(...inputs: Record<string, unknown>[]) {
                calls.push({ method: 'solana:signIn', args: inputs });
                const key = options.signInKey ?? secretKey;
                const pub = ed25519.getPublicKey(key);
                const signedMessage = new TextEncoder().encode(siwsText({ ...inputs[0], address: bs58.encode(pub) }));
                return [{ account: { publicKey: pub, address: bs58.encode(pub) }, signedMessage, signature: ed25519.sign(signedMessage, key) }];
              },
            },
          },
        }
      : {}),
    on(event, listener) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)!.add(listener);
    },
    removeListener(event, listener) {
      listeners.get(event)?.delete(listener);
    },
    emit(event, ...args) {
      for (const l of [...(listeners.get(event) ?? [])]) l(...args);
    },
  };
  return provider;
}

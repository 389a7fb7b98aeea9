import { getBytes, Wallet, type HDNodeWallet } from 'ethers';
import type { EIP1193Provider } from '../../src/index.js';

export interface FakeEip1193Options {
  wallet?: Wallet | HDNodeWallet;
  /** eth_accounts answers the account without a prompt (the site is already authorised). */
  trusted?: boolean;
  /** eth_accounts throws (some wallets reject it while locked). */
  rejectTrusted?: boolean;
  /** eth_requestAccounts gives no account. */
  noAccounts?: boolean;
  /** personal_sign answers an empty string. */
  emptySignature?: boolean;
  chainId?: number;
}

export interface FakeEip1193 extends EIP1193Provider {
  wallet: Wallet | HDNodeWallet;
  requests: { method: string; params?: unknown }[];
  sent: Record<string, string>[];
  emit(event: string, ...args: unknown[]): void;
  listenerCount(event: string): number;
  setChain(chainId: number): void;
}

/** An EIP-1193 provider backed by a real ethers Wallet: personal_sign gives real signatures. */
export function createFakeEip1193(options: FakeEip1193Options = {}): FakeEip1193 {
  const wallet = options.wallet ?? Wallet.createRandom();
  let authorised = options.trusted ?? false;
  let chainId = options.chainId ?? 1;
  const listeners = new Map<string, Set<(...args: any[]) => void>>();
  const requests: FakeEip1193['requests'] = [];
  const sent: FakeEip1193['sent'] = [];
  const account = () => (options.noAccounts ? [] : [wallet.address]);

  return {
    wallet,
    requests,
    sent,
    async request({ method, params }) {
      requests.push({ method, params });
      const p = (params ?? []) as any[];
      switch (method) {
        case 'eth_accounts':
          if (options.rejectTrusted) throw Object.assign(new Error('locked'), { code: 4100 });
          return authorised ? account() : [];
        case 'eth_requestAccounts':
          authorised = true;
          return account();
        case 'eth_chainId':
          return '0x' + chainId.toString(16);
        case 'net_version':
          return String(chainId);
        case 'personal_sign': {
          if (options.emptySignature) return '';
          const [hexMessage, address] = p as [string, string];
          if (address.toLowerCase() !== wallet.address.toLowerCase()) throw new Error('unknown address');
          // Copy into a plain Uint8Array of this realm before handing it to ethers.
          return wallet.signMessage(new Uint8Array(getBytes(hexMessage)));
        }
        case 'eth_estimateGas':
          return '0x5208';
        case 'eth_sendTransaction': {
          sent.push(p[0] as Record<string, string>);
          return '0x' + String(sent.length).padStart(64, '0');
        }
        default:
          throw Object.assign(new Error(`unsupported method ${method}`), { code: 4200 });
      }
    },
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
    listenerCount: (event) => listeners.get(event)?.size ?? 0,
    setChain(id) {
      chainId = id;
    },
  };
}

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
  /** Chains wallet_switchEthereumChain accepts without wallet_addEthereumChain; default [1, 5, 10, 56, 137, 1337]. */
  knownChains?: number[];
  /** Answers eth_call: gets {to, data}, returns the 0x answer. */
  call?: (tx: { to: string; data: string }) => string;
}

/** An EIP-1193 error as wallets throw it. */
export const rpcError = (code: number, message = `rpc error ${code}`) => Object.assign(new Error(message), { code });

export interface FakeEip1193 extends EIP1193Provider {
  wallet: Wallet | HDNodeWallet;
  requests: { method: string; params?: unknown }[];
  sent: Record<string, string>[];
  emit(event: string, ...args: unknown[]): void;
  listenerCount(event: string): number;
  /** Sets the chain the wallet answers with (no event). */
  setChain(chainId: number): void;
  /** Switches to another key and emits accountsChanged, as a wallet does when the user picks another account. */
  switchAccount(wallet: Wallet | HDNodeWallet, emit?: boolean): void;
  /** The next request of `method` fails with this error (once). */
  failNext(method: string, error: Error): void;
  /**
   * Holds requests of `method` until the returned function is called; `entered` resolves when one arrives.
   */
  hold(method: string): { release: () => void; entered: Promise<void> };
  count(method: string): number;
  /** Mines a sent transaction: eth_getTransactionReceipt answers it from now on. */
  mine(hash: string): void;
  /** The next `n` eth_blockNumber answers are one block behind the last mined one (a node that serves a receipt before its block is the head). */
  lagHead(n: number): void;
}

/** An EIP-1193 provider backed by a real ethers Wallet: personal_sign gives real signatures. */
export function createFakeEip1193(options: FakeEip1193Options = {}): FakeEip1193 {
  let wallet = options.wallet ?? Wallet.createRandom();
  let authorised = options.trusted ?? false;
  let chainId = options.chainId ?? 1;
  const known = new Set(options.knownChains ?? [1, 5, 10, 56, 137, 1337]);
  const listeners = new Map<string, Set<(...args: any[]) => void>>();
  const requests: FakeEip1193['requests'] = [];
  const sent: FakeEip1193['sent'] = [];
  const failures = new Map<string, Error>();
  const mined = new Map<string, number>();
  let headLag = 0;
  const holds = new Map<string, { gate: Promise<void>; enter: () => void }>();
  const account = () => (options.noAccounts ? [] : [wallet.address]);
  const emit = (event: string, ...args: unknown[]) => {
    for (const l of [...(listeners.get(event) ?? [])]) l(...args);
  };

  const provider: FakeEip1193 = {
    get wallet() {
      return wallet;
    },
    requests,
    sent,
    async request({ method, params }) {
      requests.push({ method, params });
      const h = holds.get(method);
      if (h) {
        h.enter();
        await h.gate;
      }
      const fail = failures.get(method);
      if (fail) {
        failures.delete(method);
        throw fail;
      }
      const p = (params ?? []) as any[];
      switch (method) {
        case 'eth_accounts':
          if (options.rejectTrusted) throw rpcError(4100, 'locked');
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
        case 'wallet_switchEthereumChain': {
          const id = Number.parseInt(String(p[0]?.chainId), 16);
          if (!known.has(id)) throw rpcError(4902, 'Unrecognized chain ID');
          if (id !== chainId) {
            chainId = id;
            emit('chainChanged', '0x' + id.toString(16));
          }
          return null;
        }
        case 'wallet_addEthereumChain': {
          const id = Number.parseInt(String(p[0]?.chainId), 16);
          if (!p[0]?.rpcUrls?.length) throw rpcError(-32602, 'rpcUrls required');
          known.add(id);
          return null;
        }
        case 'eth_estimateGas':
          return '0x5208';
        case 'eth_sendTransaction': {
          sent.push(p[0] as Record<string, string>);
          return '0x' + String(sent.length).padStart(64, '0');
        }
        case 'eth_call':
          if (!options.call) throw rpcError(-32601, 'eth_call not supported');
          return options.call(p[0]);
        case 'eth_blockNumber':
          if (headLag > 0) {
            headLag--;
            return '0x' + (9 + mined.size).toString(16);
          }
          return '0x' + (10 + mined.size).toString(16);
        case 'eth_getTransactionReceipt': {
          const n = mined.get(String(p[0]));
          if (n === undefined) return null;
          return { transactionHash: p[0], blockNumber: '0x' + n.toString(16), status: '0x1', from: wallet.address, to: null, gasUsed: '0x5208', logs: [] };
        }
        default:
          throw rpcError(4200, `unsupported method ${method}`);
      }
    },
    on(event, listener) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)!.add(listener);
    },
    removeListener(event, listener) {
      listeners.get(event)?.delete(listener);
    },
    emit,
    listenerCount: (event) => listeners.get(event)?.size ?? 0,
    setChain(id) {
      chainId = id;
    },
    switchAccount(next, doEmit = true) {
      wallet = next;
      if (doEmit) emit('accountsChanged', [next.address]);
    },
    failNext(method, error) {
      failures.set(method, error);
    },
    hold(method) {
      let release!: () => void;
      let enter!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const entered = new Promise<void>((r) => (enter = r));
      holds.set(method, { gate, enter });
      return {
        release: () => {
          holds.delete(method);
          release();
        },
        entered,
      };
    },
    count: (method) => requests.filter((r) => r.method === method).length,
    lagHead(n) {
      headLag = n;
    },
    mine(hash) {
      mined.set(hash, 11 + mined.size);
    },
  };
  return provider;
}

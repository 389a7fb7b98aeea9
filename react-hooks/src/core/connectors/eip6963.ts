import type { Config } from '../config.js';
import type { EIP1193Provider } from '../types.js';
import { injected } from './injected.js';

/** What a wallet announces through EIP-6963. */
export interface EIP6963ProviderInfo {
  uuid: string;
  name: string;
  /** A data: URI of the wallet's icon. */
  icon: string;
  /** Reverse-DNS id, e.g. "io.metamask"; used as the connector id. */
  rdns: string;
}

/** `event.detail` of `eip6963:announceProvider`. */
export interface EIP6963ProviderDetail {
  info: EIP6963ProviderInfo;
  provider: EIP1193Provider;
}

const RDNS = /^[a-zA-Z0-9-]+(\.[a-zA-Z0-9-]+)+$/;

/** Only image data URIs are kept as icons (an icon is put in an <img src>; no remote or script URLs). */
function safeIcon(icon: unknown): string | undefined {
  return typeof icon === 'string' && /^data:image\/(png|jpeg|gif|webp|svg\+xml)[;,]/i.test(icon) && icon.length < 100_000
    ? icon
    : undefined;
}

/**
 * Discovers injected wallets (EIP-6963): listens to `eip6963:announceProvider`, then dispatches
 * `eip6963:requestProvider`. Each wallet announced with a valid `rdns` becomes an `injected` connector with that id
 * (once; a connector with the same id is kept), appended to `config.connectors`. Several calls share one listener;
 * the returned function stops it when the last caller is done. Does nothing without `window`.
 */
export function watchInjectedProviders(config: Config): () => void {
  const w = (globalThis as { window?: Window }).window;
  if (!w || typeof w.addEventListener !== 'function') return () => {};
  const internal = config._internal;
  if (internal.discovery) {
    internal.discovery.users++;
  } else {
    const onAnnounce = (event: Event) => {
      const detail = (event as CustomEvent<EIP6963ProviderDetail>).detail;
      const info = detail?.info;
      const provider = detail?.provider;
      if (!info || typeof info.rdns !== 'string' || !RDNS.test(info.rdns)) return;
      if (!provider || typeof provider.request !== 'function') return;
      const list = config.store.getState().connectors;
      if (list.some((c) => c.id === info.rdns || c.rdns === info.rdns)) return;
      const name = typeof info.name === 'string' && info.name.trim() ? info.name.trim().slice(0, 64) : info.rdns;
      const icon = safeIcon(info.icon);
      const connector = injected({ id: info.rdns, rdns: info.rdns, name, ...(icon ? { icon } : {}), target: () => provider });
      config.store.setState({ connectors: [...list, connector] });
    };
    w.addEventListener('eip6963:announceProvider', onAnnounce);
    internal.discovery = { users: 1, stop: () => w.removeEventListener('eip6963:announceProvider', onAnnounce) };
    w.dispatchEvent(new Event('eip6963:requestProvider'));
  }
  let stopped = false;
  return () => {
    if (stopped || !internal.discovery) return;
    stopped = true;
    if (--internal.discovery.users === 0) {
      internal.discovery.stop();
      internal.discovery = undefined;
    }
  };
}

import type { EventSourceCtor } from '../../src/index.js';

/** An EventSource driven by the test: open(), send(name, data), fail(closed). */
export class FakeEventSource {
  static instances: FakeEventSource[] = [];
  readyState = 0;
  closed = false;
  onopen: ((e: Event) => void) | null = null;
  onerror: ((e: Event) => void) | null = null;
  listeners = new Map<string, Set<(e: MessageEvent) => void>>();
  constructor(
    public url: string,
    public init?: { withCredentials?: boolean },
  ) {
    FakeEventSource.instances.push(this);
  }
  addEventListener(type: string, l: (e: MessageEvent) => void) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type)!.add(l);
  }
  removeEventListener(type: string, l: (e: MessageEvent) => void) {
    this.listeners.get(type)?.delete(l);
  }
  close() {
    this.readyState = 2;
    this.closed = true;
  }
  open() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  send(name: string, data: unknown, lastEventId = '') {
    const e = new MessageEvent(name, { data: typeof data === 'string' ? data : JSON.stringify(data), lastEventId });
    for (const l of this.listeners.get(name) ?? []) l(e);
  }
  fail(closed: boolean) {
    this.readyState = closed ? 2 : 0;
    this.onerror?.(new Event('error'));
  }
}

export const ES = FakeEventSource as unknown as EventSourceCtor;

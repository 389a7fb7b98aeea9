import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createConfig, liveQueryUrl, memoryStorage, useLiveQuery } from '../src/index.js';
import { ES, FakeEventSource } from './helpers/eventSource.js';


describe('useLiveQuery', () => {
  it('builds the URL', () => {
    expect(liveQueryUrl('/auth', 'Chat Message', { room: 'a&b' })).toBe(
      '/auth/live?class=Chat%20Message&where=%7B%22room%22%3A%22a%26b%22%7D',
    );
    expect(liveQueryUrl('/auth', 'Msg')).toBe('/auth/live?class=Msg');
  });

  it('keeps the list up to date from create/enter/update/leave/delete events', async () => {
    FakeEventSource.instances = [];
    const config = createConfig({ endpoint: '/auth', storage: memoryStorage(), EventSource: ES });
    const { result, unmount, rerender } = renderHook(
      (p: { room: string }) => useLiveQuery({ config, className: 'Message', where: { room: p.room }, requireSession: false }),
      { initialProps: { room: 'r1' } },
    );
    const es = FakeEventSource.instances[0]!;
    expect(es.url).toBe('/auth/live?class=Message&where=' + encodeURIComponent('{"room":"r1"}'));
    expect(es.init).toEqual({ withCredentials: true });
    expect(result.current.status).toBe('pending');
    act(() => es.open());
    expect(result.current.status).toBe('success');
    act(() => es.send('create', { object: { objectId: 'a', text: 'hi' } }));
    act(() => es.send('enter', { object: { objectId: 'b', text: 'yo' }, original: { objectId: 'b', text: 'old' } }));
    expect(result.current.objects.map((o) => o.objectId)).toEqual(['a', 'b']);
    expect(result.current.lastEvent).toMatchObject({ name: 'enter', original: { text: 'old' } });
    act(() => es.send('update', { object: { objectId: 'a', text: 'edited' }, original: { objectId: 'a', text: 'hi' } }));
    expect(result.current.objects).toEqual([{ objectId: 'a', text: 'edited' }, { objectId: 'b', text: 'yo' }]);
    act(() => es.send('leave', { object: { objectId: 'b' } }));
    act(() => es.send('create', { object: { objectId: 'c' } }));
    act(() => es.send('delete', { object: { objectId: 'a' } }));
    expect(result.current.objects).toEqual([{ objectId: 'c' }]);
    act(() => es.send('update', 'not json'));
    expect(result.current.error?.message).toBe('Invalid live query event');
    expect(result.current.objects).toEqual([{ objectId: 'c' }]);

    // a reconnecting stream goes back to pending; a closed one is an error
    act(() => es.fail(false));
    expect(result.current.status).toBe('pending');
    act(() => es.open());
    expect(result.current.status).toBe('success');

    // new conditions: the old stream is closed, a new one opened
    rerender({ room: 'r2' });
    expect(es.closed).toBe(true);
    const es2 = FakeEventSource.instances[1]!;
    expect(es2.url).toContain(encodeURIComponent('{"room":"r2"}'));
    act(() => es2.fail(true));
    expect(result.current.status).toBe('error');
    expect(result.current.error?.message).toBe('Live query connection closed');
    unmount();
    expect(es2.closed).toBe(true);
  });

  it('a snapshot starts each (re)connected stream and replaces the list, so a reconnect converges', () => {
    FakeEventSource.instances = [];
    const config = createConfig({ storage: memoryStorage() });
    const { result } = renderHook(() =>
      useLiveQuery({ config, className: 'Msg', EventSource: ES, initialObjects: [{ objectId: 'stale' }], requireSession: false }),
    );
    const es = FakeEventSource.instances[0]!;
    act(() => es.open());
    act(() => es.send('snapshot', { objects: [{ objectId: 'a', v: 1 }, { objectId: 'b', v: 1 }] }, '1'));
    expect(result.current.objects).toEqual([{ objectId: 'a', v: 1 }, { objectId: 'b', v: 1 }]);
    expect(result.current.lastEventId).toBe('1');
    act(() => es.send('create', { object: { objectId: 'c', v: 1 } }, '2'));
    expect(result.current.lastEventId).toBe('2');
    // The connection drops; meanwhile a is deleted, b updated, c leaves, d is created. The browser's EventSource
    // reconnects by itself (sending Last-Event-ID 2); the new stream starts with the server's result set.
    act(() => es.fail(false));
    expect(result.current.status).toBe('pending');
    act(() => es.open());
    act(() => es.send('snapshot', { objects: [{ objectId: 'b', v: 2 }, { objectId: 'd', v: 1 }] }, '3'));
    expect(result.current.objects).toEqual([{ objectId: 'b', v: 2 }, { objectId: 'd', v: 1 }]);
    act(() => es.send('update', { object: { objectId: 'd', v: 2 } }, '4'));
    expect(result.current.objects).toEqual([{ objectId: 'b', v: 2 }, { objectId: 'd', v: 2 }]);
    expect(result.current).toMatchObject({ status: 'success', error: null, lastEventId: '4' });
    // A malformed snapshot is reported and changes nothing.
    act(() => es.send('snapshot', 'not json', '5'));
    expect(result.current.error?.message).toBe('Invalid live query event');
    expect(result.current.objects.map((o) => o.objectId)).toEqual(['b', 'd']);
    act(() => es.send('snapshot', { objects: [{ objectId: 'e' }, { nope: 1 }, null] }, '6'));
    expect(result.current.objects).toEqual([{ objectId: 'e' }]);
  });

  it('a journaled endpoint resumes on the same EventSource (Last-Event-ID) without a snapshot; a resync waits for one', () => {
    FakeEventSource.instances = [];
    const config = createConfig({ storage: memoryStorage() });
    const { result } = renderHook(() => useLiveQuery({ config, className: 'Msg', EventSource: ES, requireSession: false }));
    const es = FakeEventSource.instances[0]!;
    act(() => es.open());
    act(() => es.send('snapshot', { objects: [{ objectId: 'a', v: 1 }] }, 'j1/1-0'));
    act(() => es.send('create', { object: { objectId: 'b', v: 1 } }, 'j1/2-0'));
    // A transient drop: the hook keeps its EventSource, which reconnects by itself sending Last-Event-ID j1/2-0
    // (a new EventSource would send none, and the endpoint could not resume).
    act(() => es.fail(false));
    expect(result.current).toMatchObject({ status: 'pending', lastEventId: 'j1/2-0' });
    expect(es.closed).toBe(false);
    expect(FakeEventSource.instances).toHaveLength(1);
    // The other instance replays what came after j1/2-0: no snapshot, the list is kept and the events applied.
    act(() => es.open());
    act(() => es.send('update', { object: { objectId: 'a', v: 2 } }, 'j1/3-0'));
    act(() => es.send('enter', { object: { objectId: 'c', v: 1 } }, 'j1/4-0'));
    expect(result.current.objects).toEqual([{ objectId: 'a', v: 2 }, { objectId: 'b', v: 1 }, { objectId: 'c', v: 1 }]);
    expect(result.current).toMatchObject({ status: 'success', lastEventId: 'j1/4-0' });

    // Away past the journal's retention: resync, and nothing but the snapshot that follows changes the list.
    act(() => es.fail(false));
    act(() => es.open());
    act(() => es.send('resync', { reason: 'expired' }));
    expect(result.current).toMatchObject({ status: 'pending', lastEventId: null });
    act(() => es.send('delete', { object: { objectId: 'a' } }, 'x'));
    expect(result.current.objects.map((o) => o.objectId)).toEqual(['a', 'b', 'c']);
    act(() => es.send('snapshot', { objects: [{ objectId: 'd', v: 1 }] }, 'j2/1-0'));
    expect(result.current).toMatchObject({ status: 'success', lastEventId: 'j2/1-0', objects: [{ objectId: 'd', v: 1 }] });
    act(() => es.send('create', { object: { objectId: 'e' } }, 'j2/2-0'));
    expect(result.current.objects.map((o) => o.objectId)).toEqual(['d', 'e']);
    expect(FakeEventSource.instances).toHaveLength(1);
  });

  it('a server error event gives an EndpointError', () => {
    FakeEventSource.instances = [];
    const config = createConfig({ storage: memoryStorage() });
    const { result } = renderHook(() => useLiveQuery({ config, className: 'Secret', EventSource: ES, requireSession: false }));
    const es = FakeEventSource.instances[0]!;
    act(() => es.send('error', { code: 119, error: 'Permission denied' }));
    expect(result.current.status).toBe('error');
    expect(result.current.error).toMatchObject({ name: 'EndpointError', code: 119, message: 'Permission denied' });
    expect(es.closed).toBe(true);
  });

  it('enabled: false opens nothing; no EventSource is an error', () => {
    FakeEventSource.instances = [];
    const config = createConfig({ storage: memoryStorage() });
    const off = renderHook(() => useLiveQuery({ config, className: 'X', EventSource: ES, enabled: false, requireSession: false }));
    expect(FakeEventSource.instances).toHaveLength(0);
    expect(off.result.current.status).toBe('idle');
    const saved = (globalThis as any).EventSource;
    delete (globalThis as any).EventSource;
    const none = renderHook(() => useLiveQuery({ config, className: 'X', requireSession: false }));
    expect(none.result.current.status).toBe('error');
    (globalThis as any).EventSource = saved;
  });
});

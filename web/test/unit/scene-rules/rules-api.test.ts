import { describe, expect, it } from 'vitest';
import type { CameraRules } from '@sightline/shared/events';
import { fetchEvents, fetchRules, RulesApiError, saveRules, type FetchLike } from '../../../src/scene-rules/rules-api.ts';

const rules: CameraRules = { lines: [{ name: 'door', from: [0.5, 0], to: [0.5, 1] }], zones: [] };

function gateway(answer: (url: string, init?: RequestInit) => Response) {
  const calls: { url: string; init?: RequestInit }[] = [];
  const fetcher: FetchLike = async (url, init) => {
    calls.push({ url, ...(init ? { init } : {}) });
    return answer(url, init);
  };
  return { calls, fetcher };
}

describe('rules over the gateway’s API', () => {
  it('PUTs the lines and zones alone as JSON, and gives back what the gateway stored', async () => {
    const g = gateway(() => new Response(JSON.stringify({ camera: 'a b', updatedAt: 9, ...rules }), { status: 200 }));
    const stored = await saveRules('a b', { ...rules, camera: 'x', updatedAt: 1 } as CameraRules, g.fetcher);
    expect(stored).toEqual({ camera: 'a b', updatedAt: 9, ...rules });
    expect(g.calls[0]!.url).toBe('/api/cameras/a%20b/rules');
    expect(g.calls[0]!.init).toMatchObject({ method: 'PUT', headers: { 'content-type': 'application/json' } });
    expect(JSON.parse(String(g.calls[0]!.init!.body))).toEqual(rules);
  });

  it('keeps the gateway’s words and the field they name when it refuses', async () => {
    const body = { type: 'error', code: 'bad_rules', message: 'lines[0].to: must differ from `from`' };
    const g = gateway(() => new Response(JSON.stringify(body), { status: 400 }));
    const refused = saveRules('door', rules, g.fetcher);
    await expect(refused).rejects.toBeInstanceOf(RulesApiError);
    await expect(refused).rejects.toMatchObject({ status: 400, code: 'bad_rules', field: 'lines[0].to', message: body.message });
    const named = gateway(
      () => new Response(JSON.stringify({ ...body, field: 'zones[2].polygon', message: 'must not intersect itself' }), { status: 400 }),
    );
    await expect(saveRules('door', rules, named.fetcher)).rejects.toMatchObject({ field: 'zones[2].polygon' });
    const plain = gateway(() => new Response('', { status: 503, statusText: 'Service Unavailable' }));
    await expect(saveRules('door', rules, plain.fetcher)).rejects.toThrow('PUT /api/cameras/door/rules answered 503 Service Unavailable');
  });

  it('reads the rules and a page of history after a sequence number', async () => {
    const g = gateway((url) =>
      url.includes('/rules')
        ? new Response(JSON.stringify({ camera: 'door', ...rules }))
        : new Response(JSON.stringify({ events: [], next: 12 })),
    );
    expect(await fetchRules('door', undefined, g.fetcher)).toEqual({ camera: 'door', ...rules });
    expect(await fetchEvents('door', 11, 50, undefined, g.fetcher)).toEqual({ events: [], next: 12 });
    expect(g.calls[1]!.url).toBe('/api/events?camera=door&limit=50&since=11');
  });
});

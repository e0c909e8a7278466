import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkoutProtocols, clientChoice, clientsFor, CURRENT_CLIENT, CURRENT_PROTOCOLS } from '../../../compare/bench-client.ts';
import { presetPlans } from '../../../compare/plans.ts';
import { DEFAULT_GATEWAY_DIR } from '../../../reliability/gateway-under-test.ts';
import { compareOptions } from '../../support/compare-options.ts';

describe('compare: which benchmark client drives the servers', () => {
  it("takes this checkout's client when the other gateway serves its protocol", () => {
    expect(clientChoice({ speaks: 2, serves: [1, 2] }, { speaks: 2, serves: [1, 2] })).toBe('current');
    expect(clientChoice({ speaks: 2, serves: [1, 2] }, { speaks: 3, serves: [2, 3] })).toBe('current');
  });

  it("takes the other checkout's when only this gateway serves the other's protocol", () => {
    expect(clientChoice({ speaks: 2, serves: [1, 2] }, { speaks: 1, serves: [1] })).toBe('before');
  });

  it('gives up when the gateways share no version', () => {
    expect(() => clientChoice({ speaks: 3, serves: [3] }, { speaks: 1, serves: [1] })).toThrow(/no protocol version in common/);
  });

  it("reads a checkout's protocol constants from its shared package", async () => {
    expect(await checkoutProtocols(DEFAULT_GATEWAY_DIR.replace(/\/$/, ''))).toEqual({
      speaks: CURRENT_PROTOCOLS.speaks,
      serves: [...CURRENT_PROTOCOLS.serves],
    });
  });

  it("drives the engine preset's servers, and an A/B against a gateway of this protocol, with this client", async () => {
    const engine = presetPlans(compareOptions({ preset: 'engine' }));
    expect(await clientsFor(engine, 'same')).toEqual(engine.map(() => CURRENT_CLIENT));
    const ab = presetPlans(compareOptions({ preset: 'ab', before: DEFAULT_GATEWAY_DIR.replace(/\/$/, '') }));
    expect(await clientsFor(ab, 'same')).toEqual([CURRENT_CLIENT, CURRENT_CLIENT]);
    // `own`: the before gateway by its checkout's client (here this very checkout, imported from its folder).
    const [before, after] = await clientsFor(ab, 'own');
    expect(before).toMatchObject({
      checkout: fileURLToPath(new URL('../../../../', import.meta.url)).replace(/\/$/, ''),
      protocol: CURRENT_PROTOCOLS.speaks,
    });
    expect(typeof before?.runBenchmark).toBe('function');
    expect(after).toBe(CURRENT_CLIENT);
  });
});

import { describe, expect, it } from 'vitest';
import { parseStabilityArgs } from '../../../stability/main.ts';

describe('bench:stability arguments', () => {
  it('defaults to the target: the gateway, 6 cameras at 30 fps for 5 minutes, per minute, 1.2x', () => {
    expect(parseStabilityArgs([])).toMatchObject({ minutes: 5, window: 60, clients: 6, fps: 30, server: 'sightline', target: 1.2 });
  });

  it('takes a Python peer to start, or a running server with its access', () => {
    expect(parseStabilityArgs(['--server', 'opencv', '--minutes', '0.5', '--window', '10'])).toMatchObject({
      server: 'opencv',
      minutes: 0.5,
      window: 10,
    });
    expect(parseStabilityArgs(['--url', 'https://gw:8080', '--token', 't', '--insecure'])).toMatchObject({
      url: 'https://gw:8080',
      token: 't',
    });
  });
});

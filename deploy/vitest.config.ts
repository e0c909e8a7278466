import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each file starts real processes (gateways, HAProxy, a Python validator): on two cores, one file at
    // a time, so the failover figures measure failover and not the neighbouring test.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});

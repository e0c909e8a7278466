import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each file that starts a gateway loads real models and runs real inference: on two cores,
    // files run one at a time so timings-dependent behaviour (queues, drops) stays meaningful.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});

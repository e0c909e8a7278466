import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        // One module each, no gateway: run in parallel.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 30_000 },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // Each file starts a real gateway that loads real models and runs real inference: on two
          // cores, files run one at a time so timing-dependent behaviour (queues, drops) stays meaningful.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});

/**
 * The two vitest projects of the packages whose integration tests start real gateways (gateway, bench):
 * each package's vitest.config.ts passes them to defineConfig, which checks them. Plain objects, with no
 * import of vitest: this file sits at the workspace root (beside tsconfig.base.json), which does not
 * depend on vitest.
 */
export const gatewayTestProjects = () => [
  {
    // One module each, no gateway: run in parallel.
    test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 30_000 },
  },
  {
    test: {
      name: 'integration',
      include: ['test/integration/**/*.test.ts'],
      // Each file starts a real gateway that loads real models and runs real inference (two workers, every
      // core): files run one at a time so no two such gateways compete for the cores and the memory.
      fileParallelism: false,
      testTimeout: 60_000,
      hookTimeout: 120_000,
    },
  },
];

import { defineConfig } from 'vitest/config';

// Pure logic only: no DOM needed, so the node environment (jsdom is not installed).
export default defineConfig({
  test: {
    environment: 'node',
    include: ['test/**/*.test.ts'],
  },
});

import { defineConfig } from 'vitest/config';

/**
 * Two projects. The infrastructure tests only synthesize CDK apps (no DynamoDB, no servers, no
 * process-wide state), and most of their time is synthesizing the same stages: run without
 * isolation, files in one worker share test/infra/support.ts's synthesized stages, which halves
 * their time. Everything else keeps a fresh module graph per file and the DynamoDB Local of the run.
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: 'infra', include: ['test/infra/**/*.test.ts'], isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'service',
          include: ['test/**/*.test.ts'],
          exclude: ['test/infra/**'],
          globalSetup: ['test/support/dynamo-global-setup.ts'],
          // Passwords hash at the test-only cost (test/support/test-password-cost.ts).
          setupFiles: ['test/support/test-password-cost.ts'],
        },
      },
    ],
  },
});

import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/support/longest-first-sequencer';

/**
 * Files run in 3 workers on the 2-core machine: much of a file's time is waiting (DynamoDB Local, Chromium, child
 * processes, scaled retry waits), so a third worker fills the cores. No test depends on how fast the machine is (waits are
 * for conditions, bounded generously; time-window tests hold their clock): docs/testing.md.
 *
 * Three projects, two of them without isolation (one module graph per worker, shared by the files it runs):
 * - infra: the tests only synthesize CDK apps (no DynamoDB, no servers, no process-wide state) and share
 *   test/infra/support.ts's synthesized stages;
 * - service (integration, browser, races): each file starts a local stack of its own (its own tables on the run's
 *   DynamoDB Local, its own front and pipeline); the stack resets the process-wide platform when it starts and when it
 *   stops (lambdas/shared/platform.ts configureSharedPlatform), so what one file configured never reaches the next, and
 *   the handlers, the AWS SDK and the local stack are imported once per worker instead of once per file
 *   (docs/testing.md);
 * - unit: a fresh module graph per file, as aws-sdk-client-mock and module mocks want.
 */
const SERVICE_SETUP = ['test/support/test-password-cost.ts', 'test/support/observability-loaded.ts'];

export default defineConfig({
  test: {
    maxWorkers: 3,
    // The longest files start first, whatever their project (test/support/longest-first-sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    // Bounds on waiting, generous for a loaded machine (a test that hangs still fails, later).
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // expect.poll waits up to 30 s for its condition (Vitest's default is 1 s): a browser or a local stack on a loaded
    // machine can take longer than a second to show what a test waits for.
    expect: { poll: { timeout: 30_000 } },
    // CDK runs AWS's template validator on every synthesis of every app; the tests synthesize hundreds of apps. Off
    // here, on where a test registers it (the strict registration of addComplianceChecks, the parity test) and in every
    // `cdk synth` (.ci/run synthesizes each stage with it): docs/testing.md.
    env: { CDK_VALIDATION: 'false' },
    projects: [
      {
        extends: true,
        test: { name: 'infra', include: ['test/infra/**/*.test.ts'], isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Passwords hash at the test-only cost (test/support/test-password-cost.ts).
          // The log and metric writer loaded, as in a warm function (test/support/observability-loaded.ts).
          setupFiles: SERVICE_SETUP,
        },
      },
      {
        extends: true,
        test: {
          name: 'service',
          include: ['test/integration/**/*.test.ts', 'test/browser/**/*.test.ts', 'test/races/**/*.test.ts'],
          isolate: false,
          globalSetup: ['test/support/dynamo-global-setup.ts'],
          setupFiles: SERVICE_SETUP,
        },
      },
    ],
  },
});

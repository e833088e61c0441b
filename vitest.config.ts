import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/support/longest-first-sequencer';

/**
 * Files run in 3 workers on the 2-core machine: much of a file's time is waiting (DynamoDB Local, Chromium, child
 * processes, scaled retry waits), so a third worker fills the cores. No test depends on how fast the machine is (waits are
 * for conditions, bounded generously; time-window tests hold their clock): docs/testing.md.
 *
 * Two projects. The infrastructure tests only synthesize CDK apps (no DynamoDB, no servers, no
 * process-wide state), and most of their time is synthesizing the same stages: run without
 * isolation, files in one worker share test/infra/support.ts's synthesized stages, which halves
 * their time. Everything else keeps a fresh module graph per file and the DynamoDB Local of the run.
 */
export default defineConfig({
  test: {
    maxWorkers: 3,
    // The longest files start first, whatever their project (test/support/longest-first-sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    // Bounds on waiting, generous for a loaded machine (a test that hangs still fails, later).
    testTimeout: 120_000,
    hookTimeout: 180_000,
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
          name: 'service',
          include: ['test/**/*.test.ts'],
          exclude: ['test/infra/**'],
          globalSetup: ['test/support/dynamo-global-setup.ts'],
          // Passwords hash at the test-only cost (test/support/test-password-cost.ts).
          // The log and metric writer loaded, as in a warm function (test/support/observability-loaded.ts).
          setupFiles: ['test/support/test-password-cost.ts', 'test/support/observability-loaded.ts'],
        },
      },
    ],
  },
});

/**
 * The order files start in: the longest first, whichever project they belong to, so that the few files that take
 * minutes (their own `npm start` processes, fault injection, real bundling, Chromium) do not start last and hold the
 * run's end while the other workers idle. Vitest's own order runs the projects one after the other (by name) and,
 * without timings cached from an earlier run (a fresh clone, CI), the larger files first.
 *
 * The order only changes how soon the run ends, never what a test sees: every file still runs alone in its worker
 * (docs/testing.md). `KNOWN_LONG` is a measured list (docs/testing.md, "Measured"); a file missing from it, or one
 * that became quick, costs time, not correctness.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files measured to take the longest (most first), by path from the project root. */
export const KNOWN_LONG: readonly string[] = [
  'test/browser/settings-page.test.ts',
  'test/browser/webhooks-page.test.ts',
  'test/integration/local-start-process.test.ts',
  'test/integration/webhook-faults.test.ts',
  'test/integration/request-path-faults-account.test.ts',
  'test/integration/request-path-faults-partner.test.ts',
  'test/integration/request-path-faults-deliveries.test.ts',
  'test/integration/request-path-faults-keys-and-callbacks.test.ts',
  'test/browser/player-page.test.ts',
  'test/integration/web-settings-limits.test.ts',
  'test/integration/webhooks.test.ts',
  'test/infra/nag.test.ts',
  'test/integration/player-site.test.ts',
  'test/integration/contract-fuzz.test.ts',
  'test/integration/webhook-limits.test.ts',
  'test/integration/entitlement-periods.test.ts',
  'test/integration/web-settings.test.ts',
  'test/infra/deploy-readiness.test.ts',
  'test/integration/invitations.test.ts',
  'test/integration/outbox-atomicity.test.ts',
  'test/infra/bundling.test.ts',
  'test/integration/records-list.test.ts',
  'test/infra/upgrade-guard.test.ts',
  'test/infra/template-validator-parity.test.ts',
];

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Vitest's order within a project (cached durations, else size), then the known long files moved to the front.
    const base = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const path = spec.moduleId.replace(/\\/g, '/');
      const at = KNOWN_LONG.findIndex((known) => path.endsWith(`/${known}`));
      return at === -1 ? KNOWN_LONG.length : at;
    };
    return base.map((spec, index) => ({ spec, index })).sort((a, b) => rank(a.spec) - rank(b.spec) || a.index - b.index).map(({ spec }) => spec);
  }
}

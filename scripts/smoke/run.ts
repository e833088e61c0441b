/**
 * Runs the smoke checks of a deployment in order and reports each one:
 * the partner API's, then the web side's (with a web base URL), then the
 * edge checks (with `checkWaf`: last, since a burst leaves this address
 * refused for a while). A check that throws fails with its problems, or with
 * the error's message (e.g. no answer at all); the next check still runs.
 */
import { SmokeContext, skip, type SmokeCheck } from './check';
import { edgeChecks } from './edge-checks';
import { CheckFailure } from './expectations';
import type { SmokeOptions } from './options';
import { PARTNER_CHECKS } from './partner-checks';
import { WEB_CHECKS } from './web-checks';

export interface CheckResult {
  readonly name: string;
  readonly status: 'pass' | 'fail' | 'skip';
  /** What was seen (pass), why not run (skip), or every problem found (fail). */
  readonly details: readonly string[];
}

export function smokeChecks(options: SmokeOptions): SmokeCheck[] {
  const noWeb: SmokeCheck = { name: 'web side', run: async () => skip('not checked: no --web-base-url') };
  return [...PARTNER_CHECKS, ...(options.webBaseUrl ? WEB_CHECKS : [noWeb]), ...(options.checkWaf ? edgeChecks(options.webBaseUrl !== undefined) : [])];
}

export async function runSmoke(options: SmokeOptions, onResult: (result: CheckResult) => void = () => {}): Promise<CheckResult[]> {
  const context = new SmokeContext(options);
  const results: CheckResult[] = [];
  for (const check of smokeChecks(options)) {
    let result: CheckResult;
    try {
      const outcome = await check.run(context);
      result = { name: check.name, status: outcome.status, details: [outcome.detail] };
    } catch (error) {
      const details = error instanceof CheckFailure ? error.problems : [error instanceof Error ? error.message : String(error)];
      result = { name: check.name, status: 'fail', details };
    }
    results.push(result);
    onResult(result);
  }
  return results;
}

export const failed = (results: readonly CheckResult[]) => results.filter((result) => result.status === 'fail');

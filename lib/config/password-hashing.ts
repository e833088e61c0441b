/**
 * The functions that hash passwords, and what one of their requests needs for it: checked on every stage's
 * configuration (stage-config.ts assertValidStageConfig), so no stage deploys a function that cannot do the hashes of
 * one request (docs/infrastructure.md, "Password hashes and memory").
 *
 * A Lambda execution serves one request at a time, and a request's hashes run one after another, so a request needs
 * memory for one hash at a time beside the process (password-gate.ts hashesInMemory: 128 MiB each) and time for all of
 * them within the function's timeout, at the CPU share its memory gives (stage-config.ts hashSeconds).
 */
import { hashesInMemory } from '../../lambdas/back-office/password-gate';
import type { EndpointGroup } from '../../lambdas/shared/http/routes';

/**
 * The most hashes one request of each function does, one after another (lambdas/back-office: passwords.ts callers).
 * - sign-in: the password's verification, or the decoy's for an unknown address (sign-in.ts authenticate);
 * - settings: a password change, 2 when it succeeds (the current password verified, the new one hashed) and 3 when
 *   the current one is wrong within the change's retry window (accounts.ts madeChange verifies the replaced and the
 *   new password); every other re-checked change (key creation, two-factor) verifies once;
 * - webhooks: the callback creation's re-check (sign-in.ts confirm).
 */
export const PASSWORD_HASHES_PER_REQUEST: Readonly<Partial<Record<EndpointGroup, number>>> = { 'sign-in': 1, settings: 3, webhooks: 1 };

export interface HashingFunction {
  readonly group: EndpointGroup;
  /** PASSWORD_HASHES_PER_REQUEST's figure for it. */
  readonly hashes: number;
  readonly memoryMb: number;
  /** One hash's time at that memory (stage-config.ts hashSeconds). */
  readonly hashSeconds: number;
}

/** What keeps a function from doing the hashes of one request: no memory for one hash, or no time for all of them. */
export function passwordHashProblems(functions: readonly HashingFunction[], timeoutSeconds: number): string[] {
  const problems: string[] = [];
  for (const { group, hashes, memoryMb, hashSeconds } of functions) {
    if (hashesInMemory(memoryMb) < 1) problems.push(`the ${group} function's ${memoryMb} MB has no room for a password hash (128 MiB) beside the process (128 MB)`);
    const seconds = hashes * hashSeconds;
    if (seconds > timeoutSeconds) {
      problems.push(`the ${group} function's requests hash up to ${hashes} passwords, ${Math.round(seconds * 100) / 100} s at ${memoryMb} MB, beyond lambda.timeoutSeconds ${timeoutSeconds}`);
    }
  }
  return problems;
}

/**
 * The spec's logging rule for rate rejections: a rejection of a recognized
 * key is logged at most once per key per minute, with an id starting `rate_`.
 * Each container remembers what it logged (RateLogSampler, a pre-filter); a
 * conditional write on the key item (`rate_logged_minute`) makes it exact
 * across containers.
 */
import { randomUUID } from 'node:crypto';
import type { ApiError } from '../errors';
import { apiKeyKey, type KeyFacts } from '../identity/access-items';
import { logger } from '../observability/logger';
import type { AdmissionStore } from './admission-store';
import { windowOf } from './limits-table';

export class RateLogSampler {
  private readonly last = new Map<string, number>();

  shouldTry(keyId: string, minute: number): boolean {
    if (this.last.get(keyId) === minute) return false;
    this.last.set(keyId, minute);
    if (this.last.size > 5000) this.last.delete(this.last.keys().next().value as string);
    return true;
  }
}

export interface RejectionLogDeps {
  readonly store: Pick<AdmissionStore, 'claimRateLogSlot'>;
  readonly rateLog: RateLogSampler;
  readonly now: Date;
  readonly signal?: AbortSignal;
}

/** Log `error` (a 429) as this minute's sample for the key, unless another request already did. Never throws. */
export async function logRejectionSample(facts: KeyFacts, error: ApiError, deps: RejectionLogDeps): Promise<void> {
  const minute = windowOf(60, deps.now.getTime()).id;
  if (!deps.rateLog.shouldTry(facts.key_id, minute)) return;
  try {
    if (!(await deps.store.claimRateLogSlot(apiKeyKey(facts.key_id), minute, deps.signal))) return;
    logger.warn('rate limit rejection', {
      id: `rate_${randomUUID().replace(/-/g, '')}`,
      key_id: facts.key_id,
      account_id: facts.account_id,
      partner_id: facts.partner_id ?? undefined,
      code: error.code,
      policy: error.headers['X-RateLimit-Policy'],
    });
  } catch (cause) {
    logger.error('rate limit rejection sample not recorded', { error: cause });
  }
}

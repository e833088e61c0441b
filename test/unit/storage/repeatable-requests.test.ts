/**
 * A request's fingerprint and the ids derived from its request id (lambdas/shared/storage/repeatable-requests.ts):
 * the same request always gives the same ones, another request other ones.
 */
import { describe, expect, it } from 'vitest';
import { repeatableRequest, requestRecordKey, requestScopedId, RequestIdReused, sameRequest } from '../../../lambdas/shared/storage/repeatable-requests';

describe('repeatableRequest', () => {
  it('gives equal arguments the same fingerprint, whatever their order and whatever is left undefined', () => {
    // Act
    const a = repeatableRequest('entitlement grant', 'ops-00000001', { owner: 'partner:org_1', units: 5, unlimited: false, starts_at: null });
    const b = repeatableRequest('entitlement grant', 'ops-00000001', { starts_at: null, unlimited: false, units: 5, owner: 'partner:org_1', expires: undefined });

    // Assess
    expect(a.fingerprint).toBe(b.fingerprint);
  });

  it.each([
    { name: 'another value', args: { owner: 'partner:org_1', units: 6 } },
    { name: 'a value of another type', args: { owner: 'partner:org_1', units: '5' } },
    { name: 'another nested value', args: { owner: 'partner:org_1', units: 5, record: { notes: 'x' } } },
  ])('gives $name another fingerprint', ({ args }) => {
    // Act
    const first = repeatableRequest('entitlement grant', 'ops-00000001', { owner: 'partner:org_1', units: 5 });
    const other = repeatableRequest('entitlement grant', 'ops-00000001', args);

    // Assess
    expect(other.fingerprint).not.toBe(first.fingerprint);
  });

  it.each(['short', 'has space in it', 'x'.repeat(129), 'semi;colon1'])('refuses the request id %j', (id) => {
    expect(() => repeatableRequest('org create', id, {})).toThrow(RangeError);
  });
});

describe('ids derived from a request id', () => {
  it('are in the code’s id format, the same for every run of a request, and another for another command or id', () => {
    // Prepare
    const request = repeatableRequest('org create', 'ops-00000001', { name: 'A' });

    // Act
    const id = requestScopedId('org', request);

    // Assess
    expect(id).toMatch(/^org_[0-9a-f]{20}$/);
    expect(requestScopedId('org', repeatableRequest('org create', 'ops-00000001', { name: 'B' }))).toBe(id);
    expect(requestScopedId('org', repeatableRequest('account create', 'ops-00000001', { name: 'A' }))).not.toBe(id);
    expect(requestScopedId('org', repeatableRequest('org create', 'ops-00000002', { name: 'A' }))).not.toBe(id);
    expect(requestRecordKey(request)).toEqual({ pk: expect.stringMatching(/^REQUEST#[0-9a-f]{32}$/), sk: 'REQUEST' });
  });
});

describe('sameRequest', () => {
  it('answers the item of the same request and refuses another request under the same id', () => {
    // Prepare
    const request = repeatableRequest('org create', 'ops-00000001', { name: 'A' });
    const item = { request_fp: request.fingerprint, partner_id: 'org_1' };

    // Act
    const same = sameRequest(request, item);
    const other = () => sameRequest(repeatableRequest('org create', 'ops-00000001', { name: 'B' }), item);

    // Assess
    expect(same).toBe(item);
    expect(other).toThrow(RequestIdReused);
  });
});

/** The request path's fault sweep covers every route of both documents, each in exactly one of its files. */
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../../lambdas/service/routes';
import { SCENARIOS, SWEEP_SHARDS } from '../../support/request-path-sweep';

describe('the request path fault sweep', () => {
  it('has a scenario for every operation of both documents', () => {
    expect(ROUTES.map((r) => r.id).filter((id) => !(id in SCENARIOS))).toEqual([]);
  });

  it('sweeps every route in exactly one file', () => {
    const swept: string[] = Object.values(SWEEP_SHARDS).flat();
    expect([...swept].sort()).toEqual(ROUTES.map((r) => r.id).sort());
  });
});

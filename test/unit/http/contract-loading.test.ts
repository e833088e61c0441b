/**
 * A function's contracts loaded on first use (lambdas/shared/http/contract-loading.ts): the check that every
 * operation of a route of the function's has its contract holds for them too, when they load; a table at hand is
 * still checked at construction.
 */
import { describe, expect, it } from 'vitest';
import { IDENTITY_ROUTES } from '../../../lambdas/identity/identity-routes';
import { ROUTE_CONTRACTS } from '../../../lambdas/service/contracts';
import { functionContracts, lazyContracts } from '../../../lambdas/shared/http/contract-loading';

const operation = async () => ({ data: {} });

describe('a function’s contracts', () => {
  it('loads a lazy table once, with the input parser, when first asked', async () => {
    // Prepare
    let loads = 0;
    const contracts = functionContracts(lazyContracts(async () => ((loads += 1), { me: ROUTE_CONTRACTS.me })), { me: operation }, IDENTITY_ROUTES);

    // Act
    contracts.start();
    const [first, second] = await Promise.all([contracts.loaded(), contracts.loaded()]);

    // Assess
    expect(loads).toBe(1);
    expect(first).toBe(second);
    expect(first.table.me).toBe(ROUTE_CONTRACTS.me);
    expect(typeof first.parseInput).toBe('function');
  });

  it('refuses a lazy table without the contract of a route it has an operation for, when it loads', async () => {
    // Prepare
    const contracts = functionContracts(lazyContracts(async () => ({})), { me: operation }, IDENTITY_ROUTES);

    // Act
    const loading = contracts.loaded();

    // Assess
    await expect(loading).rejects.toThrow('the routes me have an operation but no contract');
  });

  it('refuses a table at hand without such a contract at once', () => {
    expect(() => functionContracts({}, { me: operation }, IDENTITY_ROUTES)).toThrow('the routes me have an operation but no contract');
  });
});

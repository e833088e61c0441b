/**
 * The local stack's sealer as each function's role may use the key (local/sealing.ts GrantedSealer over the scope
 * of local/function-scope.ts): what SECRETS_KEY_USERS grants a function works, what it does not is refused as KMS
 * refuses it (AccessDeniedException, naming the function, action and purpose), a function without any key use has no
 * sealer, and outside every function (the operator's back office, a test) the key is unrestricted.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TWO_FACTOR_PURPOSE } from '../../../lambdas/back-office/two-factor-seeds';
import { WEBHOOK_SECRET_PURPOSE } from '../../../lambdas/webhooks/webhook-env';
import { asFunction } from '../../../local/function-scope';
import { GrantedSealer, LocalSealer } from '../../../local/sealing';

const seed = { purpose: TWO_FACTOR_PURPOSE, account_id: 'acc_1' };
const secret = { purpose: WEBHOOK_SECRET_PURPOSE, webhook_id: 'wh_1', partner_id: 'p_1' };
const granted = () => new GrantedSealer(new LocalSealer(randomBytes(32)));

describe('the local sealer, per function', () => {
  it('seals and opens what a function’s role may: settings seals a seed, webhooks and sign-in open it', async () => {
    // Prepare
    const sealer = granted();

    // Act
    const sealed = await asFunction('settings', () => sealer.seal('JBSWY3DPEHPK3PXP', seed))();
    const opened = await Promise.all((['settings', 'webhooks', 'sign-in'] as const).map((fn) => asFunction(fn, () => sealer.open(sealed, seed))()));

    // Assess
    expect(opened).toEqual(['JBSWY3DPEHPK3PXP', 'JBSWY3DPEHPK3PXP', 'JBSWY3DPEHPK3PXP']);
  });

  it('refuses an action the role lacks for the purpose as KMS does: AccessDeniedException naming function, action and purpose', async () => {
    // Prepare
    const sealer = granted();
    const sealedSecret = await sealer.seal('whsec_x', secret);

    // Act
    const sealSeed = await asFunction('webhooks', () => sealer.seal('JBSWY3DPEHPK3PXP', seed))().catch((error: unknown) => error);
    const openSecret = await asFunction('settings', () => sealer.open(sealedSecret, secret))().catch((error: unknown) => error);

    // Assess
    expect(sealSeed).toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining(`Function webhooks is not authorized to perform kms:Encrypt on the secrets key for purpose ${TWO_FACTOR_PURPOSE}`) });
    expect(openSecret).toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining(`Function settings is not authorized to perform kms:Decrypt on the secrets key for purpose ${WEBHOOK_SECRET_PURPOSE}`) });
  });

  it('gives a function without a key use no sealer at all, and honours a table that takes a use away', async () => {
    // Prepare
    const sealer = granted();
    const withoutTwoFactor = new GrantedSealer(new LocalSealer(randomBytes(32)), { webhooks: [{ purpose: WEBHOOK_SECRET_PURPOSE, actions: ['kms:Decrypt'] }] });
    const sealed = await withoutTwoFactor.seal('JBSWY3DPEHPK3PXP', seed);

    // Act
    const records = await asFunction('records', () => sealer.seal('x', seed))().catch((error: unknown) => error);
    const fanOut = await asFunction('webhook-fanout', () => sealer.open('local:x', secret))().catch((error: unknown) => error);
    const webhooks = await asFunction('webhooks', () => withoutTwoFactor.open(sealed, seed))().catch((error: unknown) => error);

    // Assess
    expect(records).toMatchObject({ name: 'Error', message: expect.stringContaining('Sealing is not configured in this function (records)') });
    expect(fanOut).toMatchObject({ name: 'Error', message: expect.stringContaining('Sealing is not configured in this function (webhook-fanout)') });
    expect(webhooks).toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining('Function webhooks is not authorized to perform kms:Decrypt') });
  });

  it('keeps a function’s scope across awaits and timers, and a scope entered inside another replaces it (the worker started by a request)', async () => {
    // Prepare
    const sealer = granted();
    const sealed = await sealer.seal('whsec_x', secret);

    // Act
    const worker = await asFunction('settings', async () => {
      await sleep(1);
      return asFunction('webhook-delivery', async () => {
        await sleep(1);
        return sealer.open(sealed, secret);
      })();
    })();

    // Assess
    expect(worker).toBe('whsec_x');
  });

  it('is the operator’s, unrestricted, outside every function', async () => {
    // Prepare
    const sealer = granted();

    // Act
    const opened = await sealer.open(await sealer.seal('JBSWY3DPEHPK3PXP', seed), seed);

    // Assess
    expect(opened).toBe('JBSWY3DPEHPK3PXP');
  });
});

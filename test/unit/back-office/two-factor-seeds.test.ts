/**
 * TOTP seeds sealed with KMS as a deployed settings function does: Encrypt and Decrypt under the
 * stage's key with the encryption context `purpose=two-factor` and the account (what the key policy
 * conditions on: lib/stateful-stack.ts), a clear legacy seed opened without KMS.
 */
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { TWO_FACTOR_PURPOSE, TwoFactorSeeds } from '../../../lambdas/back-office/two-factor-seeds';
import { KmsSealer } from '../../../lambdas/shared/sealing';

const kms = mockClient(KMSClient);
afterEach(() => kms.reset());
const KEY = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

describe('two-factor seeds with KMS', () => {
  it('seals and opens under purpose two-factor and the account, and never calls KMS for a clear legacy seed', async () => {
    // Prepare
    kms.on(EncryptCommand).resolves({ CiphertextBlob: Buffer.from('cipher') });
    kms.on(DecryptCommand).resolves({ Plaintext: Buffer.from('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP') });
    const seeds = new TwoFactorSeeds(() => new KmsSealer(KEY, new KMSClient({ region: 'eu-west-1' })));

    // Act
    const sealed = await seeds.seal('acc_1', 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
    const opened = await seeds.open('acc_1', sealed);
    const legacy = await seeds.open('acc_1', 'KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU');

    // Assess
    expect(sealed).toBe(`kms:${Buffer.from('cipher').toString('base64')}`);
    expect(opened).toBe('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
    expect(legacy).toBe('KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU');
    const context = { purpose: TWO_FACTOR_PURPOSE, account_id: 'acc_1' };
    expect(kms.commandCalls(EncryptCommand)[0].args[0].input).toMatchObject({ KeyId: KEY, EncryptionContext: context });
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(1);
    expect(kms.commandCalls(DecryptCommand)[0].args[0].input).toMatchObject({ KeyId: KEY, EncryptionContext: context });
  });
});

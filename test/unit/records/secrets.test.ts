/**
 * Service secrets: Secrets Manager by ARN (current, previous and pending versions,
 * cached per container, a failed read not kept), and the local stack's
 * in-process values, which an ARN always overrides.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { provideLocalSecret, SECRET_CACHE_MS, SecretsManagerSource, secretSource, verificationKeys } from '../../../lambdas/shared/secrets';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:partner-api/unit/record-cursor-AbCdEf';
const secretsMock = mockClient(SecretsManagerClient);
const notFound = () => Object.assign(new Error('not found'), { name: 'ResourceNotFoundException' });

afterEach(() => secretsMock.reset());

describe('SecretsManagerSource', () => {
  it('reads the current and the previous version, once per cache period', async () => {
    secretsMock.on(GetSecretValueCommand, { VersionStage: 'AWSCURRENT' }).resolves({ SecretString: 'n'.repeat(64) });
    secretsMock.on(GetSecretValueCommand, { VersionStage: 'AWSPREVIOUS' }).resolves({ SecretString: 'o'.repeat(64) });
    let now = 0;
    const source = new SecretsManagerSource(ARN, new SecretsManagerClient({}), () => now);

    const versions = await source.versions();
    await source.versions();

    expect(versions.current.toString()).toBe('n'.repeat(64));
    expect(versions.previous?.toString()).toBe('o'.repeat(64));
    expect(secretsMock.commandCalls(GetSecretValueCommand)).toHaveLength(3);
    now += SECRET_CACHE_MS + 1;
    await source.versions();
    expect(secretsMock.commandCalls(GetSecretValueCommand)).toHaveLength(6);
  });

  it('reads a staged next version (AWSPENDING) to verify with, during a rotation', async () => {
    secretsMock.on(GetSecretValueCommand, { VersionStage: 'AWSCURRENT' }).resolves({ SecretString: 'n'.repeat(64) });
    secretsMock.on(GetSecretValueCommand, { VersionStage: 'AWSPREVIOUS' }).rejects(notFound());
    secretsMock.on(GetSecretValueCommand, { VersionStage: 'AWSPENDING' }).resolves({ SecretString: 'p'.repeat(64) });

    const versions = await new SecretsManagerSource(ARN, new SecretsManagerClient({})).versions();

    expect(versions).toEqual({ current: Buffer.from('n'.repeat(64)), pending: Buffer.from('p'.repeat(64)) });
    expect(verificationKeys(versions).map(String)).toEqual(['n'.repeat(64), 'p'.repeat(64)]);
  });

  it('has no previous version before the first rotation', async () => {
    secretsMock.on(GetSecretValueCommand, { VersionStage: 'AWSCURRENT' }).resolves({ SecretString: 'n'.repeat(64) });
    secretsMock.on(GetSecretValueCommand, { VersionStage: 'AWSPREVIOUS' }).rejects(notFound());
    secretsMock.on(GetSecretValueCommand, { VersionStage: 'AWSPENDING' }).rejects(notFound());

    expect(await new SecretsManagerSource(ARN, new SecretsManagerClient({})).versions()).toEqual({ current: Buffer.from('n'.repeat(64)) });
  });

  it('does not keep a failed read: the next request tries again', async () => {
    secretsMock.on(GetSecretValueCommand).rejectsOnce(new Error('AccessDenied')).resolves({ SecretString: 'n'.repeat(64) });
    const source = new SecretsManagerSource(ARN, new SecretsManagerClient({}));

    await expect(source.versions()).rejects.toThrow('AccessDenied');
    await expect(source.versions()).resolves.toMatchObject({ current: Buffer.from('n'.repeat(64)) });
  });

  it('refuses a value too short to be a key', async () => {
    secretsMock.on(GetSecretValueCommand).resolves({ SecretString: 'short' });

    await expect(new SecretsManagerSource(ARN, new SecretsManagerClient({})).versions()).rejects.toThrow(/shorter than 32/);
  });
});

describe('secretSource', () => {
  it('uses Secrets Manager whenever the ARN is set, even where a local value was provided', async () => {
    provideLocalSecret('record-cursor', Buffer.alloc(32, 7));
    secretsMock.on(GetSecretValueCommand).resolves({ SecretString: 'a'.repeat(64) });

    const versions = await secretSource('record-cursor', { SECRET_ARN_RECORD_CURSOR: ARN }).versions();

    expect(versions.current.toString()).toBe('a'.repeat(64));
  });

  it('uses the local value without an ARN', async () => {
    provideLocalSecret('record-cursor', Buffer.alloc(32, 7));
    expect((await secretSource('record-cursor', {}).versions()).current).toEqual(Buffer.alloc(32, 7));
  });
});

describe('secretSource without any configuration', () => {
  it('is SecretNotConfigured', async () => {
    // A fresh module registry: no local value was provided in it.
    vi.resetModules();
    const fresh = await import('../../../lambdas/shared/secrets');
    await expect(fresh.secretSource('record-cursor', {}).versions()).rejects.toBeInstanceOf(fresh.SecretNotConfigured);
  });
});

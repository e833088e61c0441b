/**
 * Service secrets: key material a deployed stage keeps in AWS Secrets
 * Manager (created by the stateful stack, lib/constructs/service-secrets.ts),
 * never in code or in a function's environment. A function learns only the
 * secret's ARN (`SECRET_ARN_<ID>`), is granted GetSecretValue on exactly the
 * secrets its group declares (service/data-access.ts GROUP_SECRET_ACCESS), and reads the
 * value on first use, then keeps it for SECRET_CACHE_MS.
 *
 * Verification also accepts the previous version (`AWSPREVIOUS`), so a
 * rotation does not break what was signed moments before it, and a staged
 * next version (`AWSPENDING`), so that what containers that already sign
 * with the new value hand out is accepted by containers that still cache the
 * old one. A rotation therefore has two steps (docs/operations.md): stage the
 * new value as AWSPENDING, wait longer than SECRET_CACHE_MS (every container
 * now verifies with it), then make it AWSCURRENT. Nothing signed before,
 * during or after the rotation is refused.
 *
 * The local stack has no Secrets Manager: it hands its secrets to this
 * module in process (`provideLocalSecret`). No environment variable or
 * configuration reaches that path, so a deployed function cannot be told
 * to use it; and where an ARN is set, the ARN wins.
 */
import type { GetSecretValueCommandOutput, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { loadClientOnce } from './load-once';
import { secretArnEnvName, type SecretId } from './secret-names';

export type { SecretId };

/** How long a container keeps a secret's value before reading it again (picks up rotations). */
export const SECRET_CACHE_MS = 10 * 60_000;

export interface SecretVersions {
  /** Signs. */
  readonly current: Buffer;
  /** Also verifies, after a rotation. */
  readonly previous?: Buffer;
  /** Also verifies: the next value, staged before it becomes current. */
  readonly pending?: Buffer;
}

/** Every value a signature may have been made with: the current one first. */
export function verificationKeys(versions: SecretVersions): Buffer[] {
  return [versions.current, versions.previous, versions.pending].filter((key): key is Buffer => key !== undefined);
}

export interface SecretSource {
  versions(): Promise<SecretVersions>;
}

const localSecrets = new Map<SecretId, Buffer>();

/** The local stack's secret values (local/local-stack.ts); a deployed function never calls this. */
export function provideLocalSecret(id: SecretId, value: Buffer): void {
  localSecrets.set(id, value);
}

export class SecretNotConfigured extends Error {
  constructor(id: SecretId) {
    super(`Secret ${id} is not configured: ${secretArnEnvName(id)} is not set`);
    this.name = 'SecretNotConfigured';
  }
}

/** The Secrets Manager client's module, loaded on the first read of a secret (not at a cold start). */
const secretsManager = loadClientOnce(
  () => import('@aws-sdk/client-secrets-manager'),
  // Bounded like the DynamoDB client: an answer within a second, at most 3 attempts.
  (module) => new module.SecretsManagerClient({ maxAttempts: 3, requestHandler: { connectionTimeout: 1000, requestTimeout: 1000, throwOnRequestTimeout: true } }),
);

/** A Secrets Manager secret, read with AWSCURRENT, AWSPREVIOUS and AWSPENDING in parallel, cached per container. */
export class SecretsManagerSource implements SecretSource {
  private cached: { versions: Promise<SecretVersions>; at: number } | undefined;

  constructor(
    private readonly arn: string,
    /** The container's client unless a test gives one. */
    private readonly client?: Pick<SecretsManagerClient, 'send'>,
    private readonly now: () => number = Date.now,
  ) {}

  versions(): Promise<SecretVersions> {
    if (!this.cached || this.now() - this.cached.at > SECRET_CACHE_MS) {
      const versions = this.read();
      this.cached = { versions, at: this.now() };
      // A failed read is not kept: the next request tries again.
      versions.catch(() => {
        if (this.cached?.versions === versions) this.cached = undefined;
      });
    }
    return this.cached.versions;
  }

  private async read(): Promise<SecretVersions> {
    const loaded = await secretsManager();
    const read = (stage: string) => (this.client ?? loaded.client).send(new loaded.module.GetSecretValueCommand({ SecretId: this.arn, VersionStage: stage }));
    const [current, previous, pending] = await Promise.all([
      read('AWSCURRENT'),
      // Before the first rotation there is no previous version; outside a rotation no pending one.
      this.optionalStage(read, 'AWSPREVIOUS'),
      this.optionalStage(read, 'AWSPENDING'),
    ]);
    return {
      current: secretBytes(current),
      ...(previous ? { previous: secretBytes(previous) } : {}),
      ...(pending ? { pending: secretBytes(pending) } : {}),
    };
  }

  private async optionalStage(read: (stage: string) => Promise<GetSecretValueCommandOutput>, stage: 'AWSPREVIOUS' | 'AWSPENDING'): Promise<GetSecretValueCommandOutput | undefined> {
    try {
      return await read(stage);
    } catch (error) {
      if ((error as { name?: string } | undefined)?.name === 'ResourceNotFoundException') return undefined;
      throw error;
    }
  }
}

function secretBytes(output: GetSecretValueCommandOutput): Buffer {
  const value = output.SecretString ?? (output.SecretBinary ? Buffer.from(output.SecretBinary).toString('utf8') : '');
  if (value.length < 32) throw new Error('Secret value is shorter than 32 characters');
  return Buffer.from(value, 'utf8');
}

/** The secret `id` for this function: its Secrets Manager secret when deployed, the local stack's value locally. */
export function secretSource(id: SecretId, env: NodeJS.ProcessEnv = process.env): SecretSource {
  const arn = env[secretArnEnvName(id)];
  if (arn) return new SecretsManagerSource(arn);
  return {
    versions: async () => {
      const local = localSecrets.get(id);
      if (!local) throw new SecretNotConfigured(id);
      return { current: local };
    },
  };
}

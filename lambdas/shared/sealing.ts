/**
 * Sealing a secret for storage: KMS Encrypt/Decrypt under the stage's secrets key, with an
 * encryption context that names what the secret is for (`purpose`) and whose it is, so a ciphertext
 * opens only for its own purpose and owner and the key policy can limit each role to its purpose
 * (lib/stateful-stack.ts). Locally the stack's AES-256-GCM stand-in (local/sealing.ts) does the same
 * with the context as additional authenticated data. Values are `kms:<base64>` or `local:<base64>`.
 *
 * Used for webhook callbacks' signing secrets (lambdas/webhooks) and TOTP seeds (lambdas/back-office).
 */
import type { KMSClient } from '@aws-sdk/client-kms';
import { loadClientOnce } from './load-once';
import { traceAwsClient } from './observability/tracer';
import { perPlatform, sharedPlatform, type Platform } from './platform';

/** What a sealed value is bound to: `purpose` and the owner's ids (KMS's encryption context). */
export type EncryptionContext = Readonly<Record<string, string>> & { readonly purpose: string };

export interface Sealer {
  seal(plaintext: string, context: EncryptionContext): Promise<string>;
  open(sealed: string, context: EncryptionContext): Promise<string>;
}

/** Where a deployed function finds the stage's secrets key (set by the stack for the functions that seal). */
export const SEALING_KEY_ENV = 'SEALING_KEY_ARN';

/** The KMS client's module, loaded on the first seal or open (not at a cold start); the container's client traced. */
const kmsModule = loadClientOnce(
  () => import('@aws-sdk/client-kms'),
  (module) => traceAwsClient(new module.KMSClient({})),
);

export class KmsSealer implements Sealer {
  constructor(
    private readonly keyId: string,
    /** The container's client unless a test gives one. */
    private readonly kms?: Pick<KMSClient, 'send'>,
  ) {}

  async seal(plaintext: string, context: EncryptionContext): Promise<string> {
    const { module, client } = await kmsModule();
    const { CiphertextBlob } = await (this.kms ?? client).send(
      new module.EncryptCommand({ KeyId: this.keyId, Plaintext: Buffer.from(plaintext, 'utf8'), EncryptionContext: { ...context } }),
    );
    return `kms:${Buffer.from(CiphertextBlob as Uint8Array).toString('base64')}`;
  }

  async open(sealed: string, context: EncryptionContext): Promise<string> {
    if (!sealed.startsWith('kms:')) throw new Error(`Sealed ${context.purpose} value is not a KMS ciphertext`);
    const { module, client } = await kmsModule();
    const { Plaintext } = await (this.kms ?? client).send(
      new module.DecryptCommand({ KeyId: this.keyId, CiphertextBlob: Buffer.from(sealed.slice(4), 'base64'), EncryptionContext: { ...context } }),
    );
    return Buffer.from(Plaintext as Uint8Array).toString('utf8');
  }
}

/** A function whose stack gave it no key: sealing fails loudly, naming what is missing. */
class Unconfigured implements Sealer {
  constructor(private readonly what: string) {}
  async seal(): Promise<string> {
    throw new Error(`Sealing is not configured in this function: ${this.what} is not set`);
  }
  async open(): Promise<string> {
    throw new Error(`Sealing is not configured in this function: ${this.what} is not set`);
  }
}

/** The deployed function's sealer, from its environment (`name` is the variable holding the key's ARN). */
export function kmsSealerFromEnv(env: NodeJS.ProcessEnv, name = SEALING_KEY_ENV): Sealer {
  const keyArn = env[name];
  return keyArn ? new KmsSealer(keyArn) : new Unconfigured(name);
}

/**
 * The sealer of a platform's container: the local stack's when it runs in one (a test's own platform without
 * switches seals like the process's local stack), else KMS under the key the stack gave the function (SEALING_KEY_ARN:
 * every API function whose role has a use of the key, lib/stateless-stack.ts). Either way what the function may seal or
 * open is its role's key uses: the key policy and IAM deployed, the local sealer's check of the invoking function
 * locally. Only the functions that seal import this module (and so the KMS client).
 */
export const sealerOf = perPlatform((platform: Platform): Sealer => platform.localSwitches?.sealer ?? sharedPlatform().localSwitches?.sealer ?? kmsSealerFromEnv(process.env));

/**
 * The local stand-in for KMS (lambdas/shared/sealing.ts): AES-256-GCM under one key per local stack,
 * the encryption context as additional authenticated data, so a sealed value opens only for its own
 * purpose and owner. `local:<base64(iv | tag | ciphertext)>`, never confused with a deployed `kms:`
 * value. With a data path the key is kept there, so sealed values survive a restart.
 *
 * The stack's handlers get the key through GrantedSealer: each function may use it only as its role's
 * key uses say (SECRETS_KEY_USERS, the table the deployed key policy and IAM grants are built from), so
 * a route whose function lacks a grant fails here as it would deployed, not first in AWS.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SEALING_KEY_ENV, type EncryptionContext, type Sealer } from '../lambdas/shared/sealing';
import { keyUsesOf, SECRETS_KEY_USERS, type KeyUse, type KeyUsers } from '../lib/config/secrets-key-users';
import { currentFunction } from './function-scope';

export class LocalSealer implements Sealer {
  /** The file name is the one the webhook pipeline used before two-factor seeds were sealed too. */
  static readonly KEY_FILE = 'webhook-sealing-key';

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new RangeError('The local sealing key must be 32 bytes');
  }

  /** A fresh key (a stack without a data path), or the one kept in `dataPath` (created on first use, owner-readable only). */
  static forStack(dataPath: string | undefined): LocalSealer {
    if (!dataPath) return new LocalSealer(randomBytes(32));
    const file = join(dataPath, LocalSealer.KEY_FILE);
    if (existsSync(file)) return new LocalSealer(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'));
    const key = randomBytes(32);
    mkdirSync(dataPath, { recursive: true });
    writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return new LocalSealer(key);
  }

  async seal(plaintext: string, context: EncryptionContext): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(additionalData(context));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `local:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
  }

  async open(sealed: string, context: EncryptionContext): Promise<string> {
    if (!sealed.startsWith('local:')) throw new Error(`Sealed ${context.purpose} value is not a local ciphertext`);
    const bytes = Buffer.from(sealed.slice('local:'.length), 'base64');
    if (bytes.length < 28) throw new Error(`Sealed ${context.purpose} value is truncated`);
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, 12));
    decipher.setAAD(additionalData(context));
    decipher.setAuthTag(bytes.subarray(12, 28));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
    } catch (cause) {
      // What KMS answers for a wrong key or encryption context (InvalidCiphertextException).
      throw new Error(`Sealed ${context.purpose} value does not open with this key and context`, { cause });
    }
  }
}

/** The context as KMS would bind it, in the order given (the webhook code's order keeps values sealed before readable). */
const additionalData = (context: EncryptionContext) => Buffer.from(JSON.stringify(context), 'utf8');

/**
 * The stack's key as the invoking function's role may use it (local/function-scope.ts names the function): a seal is
 * `kms:Encrypt`, an open `kms:Decrypt`, each for the context's `purpose`. A function whose role has no key use has no
 * sealer, as a deployed function without SEALING_KEY_ARN; a use its role lacks is refused as KMS refuses it
 * (AccessDeniedException). Outside every function (the back office of the admin CLI, the seed, a test) the key is the
 * operator's, unrestricted.
 */
export class GrantedSealer implements Sealer {
  constructor(
    private readonly key: Sealer,
    /** Tests only: another table than SECRETS_KEY_USERS (a grant removed). */
    private readonly keyUsers: KeyUsers = SECRETS_KEY_USERS,
  ) {}

  async seal(plaintext: string, context: EncryptionContext): Promise<string> {
    this.admit('kms:Encrypt', context.purpose);
    return this.key.seal(plaintext, context);
  }

  async open(sealed: string, context: EncryptionContext): Promise<string> {
    this.admit('kms:Decrypt', context.purpose);
    return this.key.open(sealed, context);
  }

  private admit(action: KeyUse['actions'][number], purpose: string): void {
    const fn = currentFunction();
    if (fn === undefined) return;
    const uses = keyUsesOf(fn, this.keyUsers);
    if (uses.length === 0) throw new Error(`Sealing is not configured in this function (${fn}): its role has no use of the secrets key (SECRETS_KEY_USERS): deployed, the stack gives it no ${SEALING_KEY_ENV}`);
    if (!uses.some((use) => use.purpose === purpose && use.actions.includes(action))) throw accessDenied(fn, action, purpose);
  }
}

/** What KMS answers a role that no policy allows the action under the context (an error named AccessDeniedException). */
function accessDenied(fn: string, action: string, purpose: string): Error {
  const error = new Error(`Function ${fn} is not authorized to perform ${action} on the secrets key for purpose ${purpose}: its role's key uses (SECRETS_KEY_USERS) do not include it`);
  error.name = 'AccessDeniedException';
  return error;
}

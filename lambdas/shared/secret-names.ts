/**
 * The service's secrets by id, and how a function learns where each is:
 * shared by the infrastructure (lib/constructs/service-secrets.ts) and the
 * functions (secrets.ts) without pulling the Secrets Manager client into
 * synthesis.
 */
export type SecretId = 'record-cursor' | 'invitation-token' | 'device-cookie';

export const SECRET_IDS: readonly SecretId[] = ['record-cursor', 'invitation-token', 'device-cookie'];

/** What each secret is for (the secret's description in AWS). */
export const SECRET_PURPOSES: Readonly<Record<SecretId, string>> = {
  'record-cursor': 'Signs the record list cursors (HMAC-SHA256); rotating it invalidates outstanding cursors after one more rotation',
  'invitation-token': 'Derives the invitation join tokens (HMAC-SHA256); rotating it changes the links given from then on, and old links stop working after one more rotation',
  'device-cookie':
    "Signs web settings' device cookies (HMAC-SHA256), which let a browser that signed in to an address before count its sign-in attempts apart from the address's; rotating it makes older cookies count per address again after one more rotation",
};

/**
 * A secret's name in Secrets Manager: `partner-api/<stage>/<id>-key`. Never ending in a hyphen and six
 * characters, which Secrets Manager reads as the random suffix of an ARN ("Do not end your secret
 * name with a hyphen followed by six characters"): `…/record-cursor` would.
 */
export const secretName = (stage: string, id: SecretId) => `partner-api/${stage}/${id}-key`;

/** Environment variable carrying a secret's ARN. */
export const secretArnEnvName = (id: SecretId) => `SECRET_ARN_${id.toUpperCase().replace(/-/g, '_')}`;

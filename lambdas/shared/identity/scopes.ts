/**
 * Scopes of the spec's "Scopes" table and which key type may carry them.
 * Read and write scopes do not imply each other.
 */
export const PERSONAL_SCOPES = ['public:read', 'entitlements:read'] as const;
export const ORGANIZATION_SCOPES = [
  'public:read',
  'entitlements:read',
  'records:read',
  'invitations:read',
  'invitations:write',
  'tickets:read',
] as const;

export type Scope = (typeof ORGANIZATION_SCOPES)[number];

export const ALL_SCOPES: readonly Scope[] = ORGANIZATION_SCOPES;

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

export function scopesAllowedFor(kind: 'personal' | 'organization'): readonly Scope[] {
  return kind === 'personal' ? PERSONAL_SCOPES : ORGANIZATION_SCOPES;
}

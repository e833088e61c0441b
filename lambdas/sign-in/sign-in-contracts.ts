/**
 * The contract of signing in to web settings (each declared once here, rules and contract: *-routes.ts is generated from them; group `sign-in`): the one route of the `sign-in` function.
 * Same error shape, cross-site checks and OpenAPI document (docs/settings-openapi.json) as the rest of settings; it
 * answers the same session view as `GET /settings/api/session`, whose schema is the settings group's.
 */
import * as z from 'zod/mini';
import { withErrorCode, type GroupContracts } from '../shared/http/contract';
import type { SIGN_IN_ROUTES } from './sign-in-routes';
import { SettingsSessionSchema } from '../settings/settings-contracts';

const text = (max: number) => z.string().check(z.maxLength(max));

/** The session view, and the attempts refused since the address's last sign-in, when there were any (refused-sign-ins.ts). */
export const SignedInSchema = z.extend(SettingsSessionSchema, {
  refused_sign_ins: z.optional(z.strictObject({ count: z.number(), last_at: z.string() })),
});

export const SIGN_IN_CONTRACTS = {
  'settings-sign-in': {
    method: 'POST', path: '/settings/api/session', auth: 'web', category: 'settings-sign-in',
    summary: 'Sign in: sets the session cookie (and the device cookie)',
    description:
      'A wrong password and an unknown e-mail address answer the same 401 INVALID_PASSWORD after the same work; with two-factor on, a missing or wrong code is 401 INVALID_TWO_FACTOR. Attempts are limited by source IP and by e-mail address (sign-in-* policies), counted before the password is checked; a browser whose `settings_device` cookie (set by each successful sign-in, path `/settings/api/session`, 180 days) is valid for the address typed is counted by that device instead of the address, so strangers who spend the address\u2019s attempts do not lock it out. ' +
      'The answer sets the session cookie and the device cookie, and says in `refused_sign_ins` how many attempts at the address were refused (wrong password or code, or a sign-in limit) since its last sign-in, and when the last one was.',
    body: z.strictObject({
      email: withErrorCode(text(1024), 'INVALID_FIELD'),
      password: withErrorCode(text(1024), 'INVALID_FIELD'),
      two_factor_code: withErrorCode(z.optional(text(16)), 'INVALID_FIELD'),
    }),
    status: 200,
    data: SignedInSchema,
    errors: ['CSRF_CHECK_FAILED', 'INVALID_PASSWORD', 'INVALID_TWO_FACTOR', 'ACCOUNT_INACTIVE', 'RATE_LIMIT_UNAVAILABLE', 'API_KEY_NOT_ACCEPTED', 'DUPLICATE_CREDENTIAL_COOKIE', 'PASSWORD_CHECK_BUSY'],
  },
} as const satisfies GroupContracts<typeof SIGN_IN_ROUTES>;

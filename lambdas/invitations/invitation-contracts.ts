/**
 * The contracts of the invitations group's routes (each declared once here, rules and contract: *-routes.ts is generated from them; group `invitations`): create, list, read,
 * link and revoke an organization's invitations.
 */
import * as z from 'zod/mini';
import { described, isoTime, named, pageNumberQuery, withErrorCode, type GroupContracts } from '../shared/http/contract';
import type { INVITATION_ROUTES } from './invitation-routes';
import { GAME_GROUPS } from '../records/games';
import { INVITATION_ID_PATTERN } from './invitation-model';

const invitationFields = {
  id: described('Invitation id (uuid); never the formal ticket id', z.string().check(z.regex(INVITATION_ID_PATTERN))),
  game: z.enum(GAME_GROUPS),
  state: described('pending, claiming, joined, expired or revoked', z.enum(['pending', 'claiming', 'joined', 'expired', 'revoked'])),
  ticket_id: described('Formal ticket id once joined, otherwise null', z.nullable(z.string())),
  created_at: isoTime(),
  expires_at: described('Creation time plus 7 days', isoTime()),
  archived_at: described('When the organization archived it', z.nullable(isoTime())),
};

/** The spec's Invitation object as reads return it: state metadata only (no link, no notes). */
export const InvitationSchema = named('Invitation', z.strictObject(invitationFields));

/** The creation response: the Invitation with `link` (null on a replay of an unusable invitation) and `replayed`. */
export const CreatedInvitationSchema = named(
  'CreatedInvitation',
  z.strictObject({
    ...invitationFields,
    link: described('Full join link with the #token=<TOKEN> fragment; null when the invitation is no longer usable', z.nullable(z.string())),
    replayed: z.boolean(),
  }),
);

/** The link-retrieval response: the Invitation with its `link`. */
export const InvitationLinkSchema = named('InvitationLink', z.strictObject({ ...invitationFields, link: z.string() }));

const InvitationPageSchema = named(
  'InvitationPage',
  z.object({
    items: described('20 per page, newest created first', z.array(InvitationSchema)),
    page: z.int(),
    page_count: described('Pages of 20 the organization has now (0 when none)', z.int()),
  }),
);

const invitationPath = z.object({
  partner_id: z.string(),
  invitation_id: withErrorCode(z.string().check(z.regex(INVITATION_ID_PATTERN)), 'INVITE_UNAVAILABLE'),
});

export const INVITATION_CONTRACTS = {
  invitations: {
    method: 'GET', path: '/partners/{partner_id}/invitations', auth: 'key', scope: 'invitations:read', partnerBound: true, category: 'invitation',
    summary: 'List the organization\u2019s invitations',
    clientMethod: 'listInvitations',
    description: 'Newest created first, 20 per page; new invitations can shift pages, so de-duplicate by id. Each page costs the same however deep.',
    query: pageNumberQuery(),
    status: 200,
    data: InvitationPageSchema,
  },
  'invitation-create': {
    method: 'POST', path: '/partners/{partner_id}/invitations', auth: 'key', scope: 'invitations:write', partnerBound: true, category: 'invitation-create',
    summary: 'Create a one-time player invitation',
    clientMethod: 'createInvitation',
    description:
      'Idempotent per key id + organization + Idempotency-Key: a replay answers 200 with the original invitation and replayed true (link null once it is used, expired or revoked); the same key with another game or other notes is 409 IDEMPOTENCY_CONFLICT. At most 50 active invitations per organization: beyond that 429 TOO_MANY_INVITES with X-RateLimit-Policy organization-active-invitations and Retry-After until the earliest pending invitation expires (60 s when only claims in progress hold the slots).',
    body: z.strictObject({
      game: withErrorCode(z.enum(GAME_GROUPS), 'INVALID_GAME'),
      notes: withErrorCode(
        z.optional(
          described(
            'Draft notes for the ticket: empty, or 2–600 characters after trimming; line breaks and tabs allowed, no other control characters',
            z.string().check(
              z.regex(/^(?:[^\p{Cc}]|[\n\t])*$/u),
              z.refine((notes) => notes.trim() === '' || ([...notes.trim()].length >= 2 && [...notes.trim()].length <= 600)),
            ),
          ),
        ),
        'INVALID_FIELD',
      ),
    }),
    status: 201,
    replayStatus: 200,
    data: CreatedInvitationSchema,
    errors: ['IDEMPOTENCY_KEY_REQUIRED', 'IDEMPOTENCY_CONFLICT', 'TOO_MANY_INVITES', 'INVALID_GAME'],
  },
  invitation: {
    method: 'GET', path: '/partners/{partner_id}/invitations/{invitation_id}', auth: 'key', scope: 'invitations:read', partnerBound: true, category: 'invitation',
    summary: 'One invitation',
    clientMethod: 'getInvitation',
    description: 'State metadata only: no link, no notes, no player credential. Missing, of another organization or malformed: 404 INVITE_UNAVAILABLE.',
    pathParameters: invitationPath,
    status: 200,
    data: InvitationSchema,
    errors: ['INVITE_UNAVAILABLE'],
  },
  'invitation-link': {
    method: 'GET', path: '/partners/{partner_id}/invitations/{invitation_id}/link', auth: 'key', scope: 'invitations:write', partnerBound: true, category: 'invitation',
    summary: 'The join link of a usable invitation',
    clientMethod: 'getInvitationLink',
    description: 'Only for a pending, unexpired invitation; otherwise 409 INVITE_UNAVAILABLE. Needs invitations:write.',
    pathParameters: invitationPath,
    status: 200,
    data: InvitationLinkSchema,
    errors: ['INVITE_UNAVAILABLE'],
    errorStatus: { INVITE_UNAVAILABLE: 409 },
  },
  'invitation-revoke': {
    method: 'POST', path: '/partners/{partner_id}/invitations/{invitation_id}/revoke', auth: 'key', scope: 'invitations:write', partnerBound: true, category: 'invitation',
    summary: 'Revoke an unused invitation',
    clientMethod: 'revokeInvitation',
    description:
      'Answers the Invitation with state revoked; revoking it again answers the same. A claiming, joined or expired invitation (or none) is 409 INVITE_UNAVAILABLE. No request body.',
    pathParameters: invitationPath,
    status: 200,
    data: InvitationSchema,
    errors: ['INVITE_UNAVAILABLE'],
    errorStatus: { INVITE_UNAVAILABLE: 409 },
  },
} as const satisfies GroupContracts<typeof INVITATION_ROUTES>;

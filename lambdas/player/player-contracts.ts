/**
 * The contracts of the player site's routes (each declared once here, rules and contract: *-routes.ts is generated from them; group `player`):
 * what the page's script sends and receives. They parse input through the
 * same pipeline step as the partner API's (fields name their codes), but the
 * site is not part of the partner API, so the OpenAPI document leaves them
 * out; docs/player-site.md describes them.
 */
import * as z from 'zod/mini';
import { PLAYER_DATA_FIELDS } from '../invitations/player-data';
import { INVITATION_ID_PATTERN } from '../invitations/invitation-model';
import { GAME_GROUPS } from '../records/games';
import { TICKET_STATUSES } from '../tickets/ticket-model';
import { withErrorCode, type GroupContracts } from '../shared/http/contract';
import type { PLAYER_ROUTES } from './player-routes';
import { JOIN_TOKEN_PATTERN } from '../invitations/join-link';

/** A player message: 1–1000 characters after trimming; line breaks allowed, no other control characters. */
export const PLAYER_MESSAGE_MAX_CHARACTERS = 1000;

/**
 * A client message id: the page makes one per message (22 base64url characters, 128 random bits) and sends it again
 * with every retry of that message, so a resubmission after a lost answer is recognized (tickets/ticket-requests.ts).
 */
export const CLIENT_MESSAGE_ID_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * A claim's submission id: the join page makes one per link (43 base64url characters, 256 random bits) and sends it
 * again when it submits again, so the claim of a lost answer is answered again (invitations/claim.ts). At least 22
 * characters: 128 bits.
 */
export const SUBMISSION_ID_PATTERN = /^[A-Za-z0-9_-]{22,128}$/;


const joinPath = z.object({ invitation_id: withErrorCode(z.string().check(z.regex(INVITATION_ID_PATTERN)), 'INVITE_UNAVAILABLE') });

/** What the page shows: the invitation, and to the claiming browser its ticket and conversation. */
export const PlayerViewSchema = z.strictObject({
  invitation: z.strictObject({
    id: z.string(),
    game: z.enum(GAME_GROUPS),
    state: z.enum(['pending', 'claiming', 'joined', 'expired', 'revoked']),
  }),
  /** `link`: the caller holds the link (a preview); `player`: the caller is the browser that claimed it. */
  access: z.enum(['link', 'player']),
  /** The ticket, to the claiming browser once joined; null otherwise. */
  ticket: z.nullable(
    z.strictObject({
      id: z.string(),
      status: z.enum(TICKET_STATUSES),
      updated_at: z.string(),
      /** Visible messages (staff and the player's own), oldest first, the latest 50. */
      messages: z.array(z.strictObject({ author: z.enum(['staff', 'player']), text: z.string(), at: z.string() })),
    }),
  ),
});
export type PlayerView = z.output<typeof PlayerViewSchema>;

export const PLAYER_CONTRACTS = {
  'player-page': {
    method: 'GET', path: '/join/{invitation_id}', auth: 'player',
    summary: 'The player site: the join page (HTML)',
    description:
      'The same static page for any id (no path check: its script asks `view`, and shows "not valid" for what is not a usable link); it reads the token from the fragment, which never reaches the server.',
    status: 200,
    data: z.string(),
  },
  'player-view': {
    method: 'GET', path: '/join/{invitation_id}/view', auth: 'player', category: 'player-view',
    summary: "What the link or the claiming browser may see of the invitation (X-Join-Token header, or the player's cookie)",
    pathParameters: joinPath,
    status: 200,
    data: PlayerViewSchema,
    errors: ['INVITE_UNAVAILABLE', 'TICKET_SERVICE_UNAVAILABLE', 'DUPLICATE_CREDENTIAL_COOKIE'],
  },
  'player-claim': {
    method: 'POST', path: '/join/{invitation_id}/claim', auth: 'player', category: 'player-claim',
    summary: "Claim the invitation with the player's data; sets the player's cookie",
    description:
      '201 joined; 202 accepted while the ticket is being created (claiming); 409 INVITE_UNAVAILABLE when the link was used, revoked or expired. A resubmission with the submission_id of the claim that used the link (its answer was lost) answers 201/202 again with a new cookie, the undelivered one revoked.',
    pathParameters: joinPath,
    body: z.strictObject({
      token: withErrorCode(z.string().check(z.regex(JOIN_TOKEN_PATTERN)), 'INVITE_UNAVAILABLE'),
      in_game_name: withErrorCode(PLAYER_DATA_FIELDS.in_game_name, 'INVALID_FIELD'),
      game_account_id: withErrorCode(PLAYER_DATA_FIELDS.game_account_id, 'INVALID_FIELD'),
      // Optional: a page loaded before the field existed still claims (not resumable, as then); the page always sends it.
      submission_id: withErrorCode(z.optional(z.string().check(z.regex(SUBMISSION_ID_PATTERN))), 'INVALID_FIELD'),
    }),
    status: 201,
    data: PlayerViewSchema,
    errors: ['INVITE_UNAVAILABLE', 'TICKET_SERVICE_UNAVAILABLE', 'DUPLICATE_CREDENTIAL_COOKIE'],
    errorStatus: { INVITE_UNAVAILABLE: 409 },
  },
  'player-message': {
    method: 'POST', path: '/join/{invitation_id}/messages', auth: 'player', category: 'player-message',
    summary: "Add the player's message to their ticket (the claiming browser's cookie)",
    description:
      'A resubmission with the same client_message_id (after a lost answer) answers 201 as the first did and stores nothing more; the same id with another text is 409 IDEMPOTENCY_CONFLICT. Without the id every call is a new message.',
    pathParameters: joinPath,
    body: z.strictObject({
      text: withErrorCode(
        z.string().check(
          z.trim(),
          z.refine((text) => [...text].length >= 1 && [...text].length <= PLAYER_MESSAGE_MAX_CHARACTERS),
          z.regex(/^(?:[^\p{Cc}]|[\n\t])*$/u),
        ),
        'INVALID_FIELD',
      ),
      // Optional: a page loaded before the field existed still sends messages (each a new one, as then); the page always sends it.
      client_message_id: withErrorCode(z.optional(z.string().check(z.regex(CLIENT_MESSAGE_ID_PATTERN))), 'INVALID_FIELD'),
    }),
    status: 201,
    data: PlayerViewSchema,
    errors: ['PLAYER_CREDENTIAL_REQUIRED', 'PLAYER_NOT_JOINED', 'IDEMPOTENCY_CONFLICT', 'TICKET_SERVICE_UNAVAILABLE', 'DUPLICATE_CREDENTIAL_COOKIE'],
  },
} as const satisfies GroupContracts<typeof PLAYER_ROUTES>;

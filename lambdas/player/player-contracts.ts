/**
 * The contracts of the player site's routes (routes.ts, group `player`):
 * what the page's script sends and receives. They parse input through the
 * same pipeline step as the partner API's (fields name their codes), but the
 * site is not part of the partner API, so the OpenAPI document leaves them
 * out; docs/player-site.md describes them.
 */
import * as z from 'zod/mini';
import { PLAYER_DATA_FIELDS } from '../invitations/player-data';
import { INVITATION_ID_PATTERN } from '../invitations/invitation-model';
import { GAME_GROUPS } from '../records/record-model';
import { TICKET_STATUSES } from '../tickets/ticket-model';
import { withErrorCode, type GroupContracts } from '../shared/http/contract';

/** A player message: 1–1000 characters after trimming; line breaks allowed, no other control characters. */
export const PLAYER_MESSAGE_MAX_CHARACTERS = 1000;

/** A join token as join links carry it (base64url of an HMAC-SHA256): anything else is an invalid link. */
export const JOIN_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

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
    summary: 'The player site: the join page (HTML)',
    description:
      'The same static page for any id (no path check: its script asks `view`, and shows "not valid" for what is not a usable link); it reads the token from the fragment, which never reaches the server.',
    status: 200,
    data: z.string(),
  },
  'player-view': {
    summary: "What the link or the claiming browser may see of the invitation (X-Join-Token header, or the player's cookie)",
    pathParameters: joinPath,
    status: 200,
    data: PlayerViewSchema,
    errors: ['INVITE_UNAVAILABLE', 'TICKET_SERVICE_UNAVAILABLE', 'DUPLICATE_CREDENTIAL_COOKIE'],
  },
  'player-claim': {
    summary: "Claim the invitation with the player's data; sets the player's cookie",
    description: '201 joined; 202 accepted while the ticket is being created (claiming); 409 INVITE_UNAVAILABLE when the link was used, revoked or expired.',
    pathParameters: joinPath,
    body: z.strictObject({
      token: withErrorCode(z.string().check(z.regex(JOIN_TOKEN_PATTERN)), 'INVITE_UNAVAILABLE'),
      in_game_name: withErrorCode(PLAYER_DATA_FIELDS.in_game_name, 'INVALID_FIELD'),
      game_account_id: withErrorCode(PLAYER_DATA_FIELDS.game_account_id, 'INVALID_FIELD'),
    }),
    status: 201,
    data: PlayerViewSchema,
    errors: ['INVITE_UNAVAILABLE', 'TICKET_SERVICE_UNAVAILABLE', 'DUPLICATE_CREDENTIAL_COOKIE'],
    errorStatus: { INVITE_UNAVAILABLE: 409 },
  },
  'player-message': {
    summary: "Add the player's message to their ticket (the claiming browser's cookie)",
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
    }),
    status: 201,
    data: PlayerViewSchema,
    errors: ['PLAYER_CREDENTIAL_REQUIRED', 'PLAYER_NOT_JOINED', 'TICKET_SERVICE_UNAVAILABLE', 'DUPLICATE_CREDENTIAL_COOKIE'],
  },
} as const satisfies GroupContracts<'player'>;

/**
 * The `invitations` function: create, list, read, link and revoke an
 * organization's invitations (`/partners/{partner_id}/invitations…`).
 */
import { createApiHandler } from '../shared/http/pipeline';
import { createInvitation, listInvitations, readInvitation, readInvitationLink, revokeInvitation } from './invitation-operations';

export const operations = {
  'invitation-create': createInvitation,
  invitations: listInvitations,
  invitation: readInvitation,
  'invitation-link': readInvitationLink,
  'invitation-revoke': revokeInvitation,
};

export const handler = createApiHandler({ operations });

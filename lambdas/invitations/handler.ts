/**
 * The `invitations` function: create, list, read, link and revoke an
 * organization's invitations (`/partners/{partner_id}/invitations…`).
 */
import { createPartnerApiHandler } from '../shared/http/partner-api-pipeline';
import { INVITATION_CONTRACTS } from './invitation-contracts';
import { createInvitation, listInvitations, prefetchCreation, readInvitation, readInvitationLink, revokeInvitation } from './invitation-operations';

export const operations = {
  'invitation-create': createInvitation,
  invitations: listInvitations,
  invitation: readInvitation,
  'invitation-link': readInvitationLink,
  'invitation-revoke': revokeInvitation,
};

export const definition = { operations, contracts: INVITATION_CONTRACTS, prefetch: { 'invitation-create': prefetchCreation } };

export const handler = createPartnerApiHandler(definition);

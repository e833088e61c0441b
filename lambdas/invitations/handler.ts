/**
 * The `invitations` function: create, list, read, link and revoke an
 * organization's invitations (`/partners/{partner_id}/invitations…`).
 */
import { createPartnerApiHandler } from '../shared/http/partner-api-pipeline';
import { lazyContracts } from '../shared/http/contract-loading';
import {
  createInvitation,
  listInvitations,
  prefetchCreation,
  prefetchInvitation,
  prefetchInvitationPage,
  readInvitation,
  readInvitationLink,
  revokeInvitation,
} from './invitation-operations';

/** Loaded beside the first round trip, off the cold start (contract-loading.ts). */
const CONTRACTS = lazyContracts(() => import('./invitation-contracts').then((module) => module.INVITATION_CONTRACTS));

export const operations = {
  'invitation-create': createInvitation,
  invitations: listInvitations,
  invitation: readInvitation,
  'invitation-link': readInvitationLink,
  'invitation-revoke': revokeInvitation,
};

/** Every route's reads start beside its admission (docs/request-pipeline.md, "Reads beside the admission"). */
const prefetch = {
  'invitation-create': prefetchCreation,
  invitations: prefetchInvitationPage,
  invitation: prefetchInvitation,
  'invitation-link': prefetchInvitation,
  'invitation-revoke': prefetchInvitation,
};

export const definition = { operations, contracts: CONTRACTS, prefetch };

export const handler = createPartnerApiHandler(definition);

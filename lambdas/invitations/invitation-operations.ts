/**
 * The invitation operations of the API (routes.ts: `invitation-create`,
 * `invitations`, `invitation`, `invitation-link`, `invitation-revoke`):
 * thin over InvitationStore. Input is already validated by the routes'
 * contracts, except the Idempotency-Key header, checked here.
 */
import { ApiError } from '../shared/errors';
import { prefetchedOr, type GroupOperations, type GroupPrefetch, type InputWithPath, type OperationInput, type OperationOf, type Prefetch } from '../shared/http/pipeline';
import type { Principal } from '../shared/identity/principal';
import {
  ACTIVE_INVITATION_LIMIT,
  ACTIVE_INVITATIONS_POLICY,
  CLAIMING_RETRY_AFTER_SECONDS,
  IDEMPOTENCY_KEY_PATTERN,
  INVITATION_PAGE_SIZE,
  stateAt,
  toInvitation,
  type InvitationItem,
} from './invitation-model';
import { invitationStoreOf, isCreationRead, isInvitationRead, type InvitationRead } from './invitation-store';
import { joinLink, joinToken, playerSiteBase } from './join-link';
import type { INVITATION_CONTRACTS } from './invitation-contracts';

/** Each operation is typed by its route's contract (invitation-contracts.ts): its parsed input, the data it may answer. */
type Contracts = typeof INVITATION_CONTRACTS;


const partnerOf = (input: OperationInput) => (input.principal as Principal).partnerId as string;

async function linkOf(input: OperationInput, item: InvitationItem): Promise<string> {
  const { current } = await input.platform.secret('invitation-token').versions();
  return joinLink(playerSiteBase(process.env, input.headers.get('host')?.[0]), item.id, joinToken(current, item.id));
}

/** Usable by a player: pending and not expired. */
const isUsable = (item: InvitationItem, now: Date) => stateAt(item, now) === 'pending';

/** The Idempotency-Key header's one value, if it is one (IDEMPOTENCY_KEY_PATTERN). */
function idempotencyKeyOf(headers: OperationInput['headers']): string | undefined {
  const values = headers.get('idempotency-key');
  return values?.length === 1 && IDEMPOTENCY_KEY_PATTERN.test(values[0]) ? values[0] : undefined;
}

/**
 * The creation's read (its scope's invitation, the organization item), which the partner API's door starts beside the
 * admission (pipeline.ts Prefetch): a new invitation then costs admission, its transaction and the lease release, a
 * replay admission and the release.
 */
export const prefetchCreation: Prefetch<Principal> = ({ event, caller, platform }) => {
  const idempotencyKey = idempotencyKeyOf(event.headers);
  const partnerId = event.pathParameters.partner_id;
  return idempotencyKey && partnerId ? invitationStoreOf(platform).readForCreation({ keyId: caller.keyId, partnerId, idempotencyKey }) : undefined;
};

/** POST …/invitations: 201 with the new invitation and its link; 200 with the original on a replay (link null once unusable). */
export const createInvitation: OperationOf<Contracts, 'invitation-create'> = async (input) => {
  const idempotencyKey = idempotencyKeyOf(input.headers);
  if (!idempotencyKey) throw new ApiError('IDEMPOTENCY_KEY_REQUIRED');
  const principal = input.principal as Principal;
  const { body } = input;
  const read = await prefetchedOr(input, async () => undefined, isCreationRead);
  const creation = await invitationStoreOf(input.platform).create(
    { keyId: principal.keyId, partnerId: partnerOf(input), idempotencyKey },
    body,
    input.now,
    read,
  );
  if (creation.outcome === 'conflict') throw new ApiError('IDEMPOTENCY_CONFLICT');
  if (creation.outcome === 'limit') throw new ApiError('TOO_MANY_INVITES', undefined, tooManyInvitesHeaders(creation.freesAtMs, input.now));
  const { item } = creation;
  const link = isUsable(item, input.now) ? await linkOf(input, item) : null;
  const replayed = creation.outcome === 'replayed';
  return { status: replayed ? 200 : 201, data: { ...toInvitation(item, input.now), link, replayed } };
};

/**
 * The `page` a list's raw query asks for (1 when absent), if it is one the contract will accept; undefined otherwise
 * (the door then reads nothing ahead, and the contract answers).
 */
export function requestedPage(event: { readonly query: ReadonlyMap<string, readonly string[]> }): number | undefined {
  const values = event.query.get('page');
  if (values === undefined) return 1;
  return values.length === 1 && /^[1-9][0-9]{0,5}$/.test(values[0]) ? Number(values[0]) : undefined;
}

/** A page of a list as read beside the admission: `page` says which. */
export interface PageRead {
  readonly kind: 'page-read';
  readonly page: number;
  readonly items: InvitationItem[];
  readonly total: number;
}

/** A read of page `page`, if `value` is one. */
export const isPageOf =
  (page: number) =>
  (value: unknown): value is PageRead =>
    (value as PageRead | undefined)?.kind === 'page-read' && (value as PageRead).page === page;

/** Read page `page` with `read`, as a PageRead. */
export const pageRead = async (page: number, read: (page: number) => Promise<{ items: InvitationItem[]; total: number }>): Promise<PageRead> => ({
  kind: 'page-read',
  page,
  ...(await read(page)),
});

/** The organization's page of invitations the query asks for, started beside the admission. */
export const prefetchInvitationPage: Prefetch<Principal> = ({ event, caller, platform }) => {
  const page = requestedPage(event);
  const partnerId = caller.partnerId;
  return page !== undefined && partnerId ? pageRead(page, (p) => invitationStoreOf(platform).page(partnerId, p)) : undefined;
};

/** GET …/invitations: 20 per page, newest created first; the page costs the same however deep. */
export const listInvitations: OperationOf<Contracts, 'invitations'> = async (input) => {
  const page = input.query.page === undefined ? 1 : Number(input.query.page);
  const { items, total } = await prefetchedOr(input, () => pageRead(page, (p) => invitationStoreOf(input.platform).page(partnerOf(input), p)), isPageOf(page));
  return { data: { items: items.map((item) => toInvitation(item, input.now)), page, page_count: Math.ceil(total / INVITATION_PAGE_SIZE) } };
};

/** The path's invitation, read by its id alone (whose it is, the operation checks): started beside the admission. */
export const prefetchInvitation: Prefetch<Principal> = ({ event, platform }) => {
  const id = event.pathParameters.invitation_id;
  return id ? readInvitationById(platform, id) : undefined;
};

const readInvitationById = async (platform: OperationInput['platform'], id: string): Promise<InvitationRead> => ({
  kind: 'invitation-read',
  item: await invitationStoreOf(platform).find(id),
});

/** The path's invitation as the door read it beside the admission (or now, if it did not), whoever's it is. */
const pathInvitation = (input: InputWithPath<'invitation_id'>): Promise<InvitationRead> =>
  prefetchedOr(input, () => readInvitationById(input.platform, input.pathParameters.invitation_id), isInvitationRead);

/**
 * The invitation of the path, or INVITE_UNAVAILABLE: 404 on reads, 409 on link and revoke, as each
 * route's contract says (errorStatus; the pipeline answers with it). Another organization's is none.
 */
async function found(input: InputWithPath<'invitation_id'>): Promise<InvitationItem> {
  const { item } = await pathInvitation(input);
  if (!item || item.partner_id !== partnerOf(input)) throw new ApiError('INVITE_UNAVAILABLE');
  return item;
}

/** GET …/invitations/{id}: state metadata only. */
export const readInvitation: OperationOf<Contracts, 'invitation'> = async (input) => ({ data: toInvitation(await found(input), input.now) });

/** GET …/invitations/{id}/link: the link of an unclaimed, unexpired invitation; 409 INVITE_UNAVAILABLE otherwise. */
export const readInvitationLink: OperationOf<Contracts, 'invitation-link'> = async (input) => {
  const item = await found(input);
  if (!isUsable(item, input.now)) throw new ApiError('INVITE_UNAVAILABLE');
  return { data: { ...toInvitation(item, input.now), link: await linkOf(input, item) } };
};

/**
 * POST …/invitations/{id}/revoke: the revoked invitation (the Invitation
 * object, state `revoked`). Revoking a revoked invitation answers the same;
 * a claiming, joined or expired one is 409 INVITE_UNAVAILABLE.
 */
export const revokeInvitation: OperationOf<Contracts, 'invitation-revoke'> = async (input) => {
  const item = await invitationStoreOf(input.platform).revoke(partnerOf(input), input.pathParameters.invitation_id, input.now, await pathInvitation(input));
  if (item?.state !== 'revoked') throw new ApiError('INVITE_UNAVAILABLE');
  return { data: toInvitation(item, input.now) };
};

/** The group's operations by route id: the handler serves this table, loaded off the cold start. */
export const INVITATION_OPERATIONS = {
  'invitation-create': createInvitation,
  invitations: listInvitations,
  invitation: readInvitation,
  'invitation-link': readInvitationLink,
  'invitation-revoke': revokeInvitation,
} satisfies GroupOperations<Contracts>;

/** Every route's reads start beside its admission (docs/request-pipeline.md, "Reads beside the admission"). */
export const INVITATION_PREFETCH = {
  'invitation-create': prefetchCreation,
  invitations: prefetchInvitationPage,
  invitation: prefetchInvitation,
  'invitation-link': prefetchInvitation,
  'invitation-revoke': prefetchInvitation,
} satisfies GroupPrefetch<Contracts, Principal>;

/**
 * 429 TOO_MANY_INVITES names its own policy (not the key's minute it was admitted by): remaining 0 of 50 until the
 * earliest pending invitation expires (Reset, Retry-After), or Retry-After alone when claims in progress hold every slot.
 */
export function tooManyInvitesHeaders(freesAtMs: number | undefined, now: Date): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Policy': ACTIVE_INVITATIONS_POLICY,
    'X-RateLimit-Limit': String(ACTIVE_INVITATION_LIMIT),
    'X-RateLimit-Remaining': '0',
  };
  if (freesAtMs === undefined) return { ...headers, 'Retry-After': String(CLAIMING_RETRY_AFTER_SECONDS) };
  const resetAt = Math.ceil(freesAtMs / 1000);
  return { ...headers, 'X-RateLimit-Reset': String(resetAt), 'Retry-After': String(Math.max(1, resetAt - Math.floor(now.getTime() / 1000))) };
}

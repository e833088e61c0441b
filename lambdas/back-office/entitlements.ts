/**
 * Entitlements in the back office: grant, use and refund. Each change and
 * its `entitlement.updated` event (organization owners) are written together
 * (lambdas/entitlements/entitlement-store.ts).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GAME_GROUPS, type GameGroup } from '../records/games';
import { EntitlementError, EntitlementStore, type Owner } from '../entitlements/entitlement-store';
import { repeatableRequest } from '../shared/storage/repeatable-requests';
import { BackOfficeError, officeError } from './errors';

export interface GrantRequest {
  readonly owner: string;
  readonly game: string;
  readonly units?: number;
  readonly unlimited?: boolean;
  readonly startsAt?: string;
  readonly expiresAt?: string;
  readonly permanent?: boolean;
}

const invalid = (message: string) => new BackOfficeError('INVALID_ARGUMENT', message);

/** `partner:<id>` or `account:<id>`. */
export function parseOwner(text: string): Owner {
  const match = /^(partner|account):(.+)$/.exec(text);
  if (!match) throw invalid('--owner must be partner:<partner_id> or account:<account_id>');
  return { type: match[1] as Owner['type'], id: match[2] };
}

function parseGame(text: string): GameGroup {
  if (!(GAME_GROUPS as readonly string[]).includes(text)) throw invalid(`--game must be ${GAME_GROUPS.join(' or ')}`);
  return text as GameGroup;
}

function parseTime(text: string, name: string): string {
  const ms = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(ms)) throw invalid(`${name} must be an ISO 8601 time`);
  return new Date(ms).toISOString();
}

function parseUnits(units: number | undefined): number {
  if (units === undefined || !Number.isInteger(units) || units < 1) throw invalid('--units must be a whole number of at least 1');
  return units;
}

export class EntitlementsOffice {
  private readonly store: EntitlementStore;

  constructor(client: DynamoDBDocumentClient, table: string, private readonly clock: () => Date = () => new Date()) {
    this.store = new EntitlementStore(client, table, clock);
  }

  /**
   * Grant and use take the admin CLI's request id: the same request run again answers what the first run did
   * (`replayed`), granting or using nothing more; the same id with other arguments is REQUEST_ID_REUSED.
   */
  async grant(request: GrantRequest, requestId?: string) {
    const owner = parseOwner(request.owner);
    if (Boolean(request.unlimited) === (request.units !== undefined)) throw invalid('Give either --units N or --unlimited');
    if (request.permanent && request.expiresAt !== undefined) throw invalid('Give either --expires-at or --permanent, not both');
    if (!request.permanent && request.expiresAt === undefined) throw invalid('Give --expires-at T or --permanent');
    const startsAt = request.startsAt === undefined ? this.clock().toISOString() : parseTime(request.startsAt, '--starts-at');
    const expiresAt = request.permanent ? null : parseTime(request.expiresAt as string, '--expires-at');
    if (expiresAt !== null && Date.parse(expiresAt) <= Date.parse(startsAt)) throw invalid('--expires-at must be after the start');
    const input = {
      game: parseGame(request.game),
      ...(request.unlimited ? {} : { units: parseUnits(request.units) }),
      unlimited: Boolean(request.unlimited),
      starts_at: startsAt,
      expires_at: expiresAt,
    };
    // The start as given: a default start (now) differs from run to run.
    const given = { owner: `${owner.type}:${owner.id}`, ...input, starts_at: request.startsAt === undefined ? null : startsAt };
    const repeatable = requestId === undefined ? undefined : repeatableRequest('entitlement grant', requestId, given);
    try {
      return { owner_type: owner.type, owner_id: owner.id, ...(await this.store.grant(owner, input, repeatable)) };
    } catch (error) {
      throw officeError(error);
    }
  }

  async use(owner: string, game: string, units: number | undefined, requestId?: string) {
    const parsed = { owner: parseOwner(owner), game: parseGame(game), units: parseUnits(units) };
    const request = requestId === undefined ? undefined : repeatableRequest('entitlement use', requestId, { ...parsed, owner: `${parsed.owner.type}:${parsed.owner.id}` });
    try {
      return await this.store.use(parsed.owner, parsed.game, parsed.units, undefined, request);
    } catch (error) {
      if (error instanceof EntitlementError) throw new BackOfficeError('INSUFFICIENT_UNITS', error.message);
      throw officeError(error);
    }
  }

  async refund(useId: string) {
    try {
      return await this.store.refund(useId);
    } catch (error) {
      if (error instanceof EntitlementError) throw new BackOfficeError('USE_NOT_FOUND', error.message);
      throw error;
    }
  }
}

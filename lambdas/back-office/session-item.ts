/**
 * A web-settings session's item, and its lookup (a signed-in call's first round trip): what the settings functions'
 * front door needs before its first await, without the rest of the back office (sessions.ts opens, re-checks and
 * closes sessions). One consistent read; activity recorded at most once a minute, by a conditional write that
 * concurrent requests make once.
 */
import { createHash } from 'node:crypto';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../shared/storage/conditions';

export const SESSION_IDLE_MS = 30 * 60_000;
/** Failed password or code re-checks a session may make: the last of them ends it (docs/web-settings.md). */
export const SESSION_FAILED_RECHECKS = 3;
export const SESSION_ABSOLUTE_MS = 12 * 3_600_000;
export const ACTIVITY_RESOLUTION_MS = 60_000;
/** A session token as the cookie carries it: 32 random bytes, base64url. */
export const SESSION_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const sessionDigest = (token: string) => createHash('sha256').update(`settings-session/v1\n${token}`).digest('base64url');
export const sessionKey = (token: string) => ({ pk: `SESSION#${sessionDigest(token)}`, sk: 'SESSION' });

export interface SessionItem {
  readonly account_id: string;
  readonly cred_gen: number;
  /** Absent on sessions opened before session generations: 0. */
  readonly session_gen?: number;
  readonly created_at: string;
  readonly seen_at: string;
  readonly expires_at: string;
}

/** A live session: the account and the generations it was opened under, for the admission to re-check. */
export interface LiveSession {
  readonly accountId: string;
  readonly credGen: number;
  readonly sessionGen: number;
  readonly expiresAt: string;
}

export interface SessionTable {
  readonly client: DynamoDBDocumentClient;
  readonly table: string;
  readonly clock: () => Date;
}

const isLive = (session: SessionItem, now: Date): boolean =>
  now.getTime() < Date.parse(session.expires_at) && now.getTime() < Date.parse(session.seen_at) + SESSION_IDLE_MS;

/** The session behind `token` if it is live by its times (one read); records activity at most once a minute. */
export async function lookupSession({ client, table, clock }: SessionTable, token: string | undefined): Promise<LiveSession | undefined> {
  if (!token || !SESSION_TOKEN_PATTERN.test(token)) return undefined;
  const now = clock();
  const key = sessionKey(token);
  const { Item } = await client.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
  const session = Item as SessionItem | undefined;
  if (!session || !isLive(session, now)) return undefined;
  if (now.getTime() - Date.parse(session.seen_at) >= ACTIVITY_RESOLUTION_MS) {
    try {
      await client.send(
        new UpdateCommand({
          TableName: table,
          Key: key,
          UpdateExpression: 'SET seen_at = :now',
          ConditionExpression: 'seen_at = :read',
          ExpressionAttributeValues: { ':now': now.toISOString(), ':read': session.seen_at },
        }),
      );
    } catch (error) {
      // A concurrent request recorded the activity (or the session was closed meanwhile): nothing to do.
      if (!isConditionFailure(error)) throw error;
    }
  }
  return { accountId: session.account_id, credGen: session.cred_gen, sessionGen: session.session_gen ?? 0, expiresAt: session.expires_at };
}

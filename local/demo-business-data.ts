/**
 * Business data for the local stack's demo organization: a few thousand
 * screening records across games, results and players over the past months
 * (bulk-loaded, as a migration would, local/bulk-records.ts), the newest
 * ones written through the back office (so they have their outbox events),
 * and grants that are counted and partly used, unlimited, queued and
 * expired, plus a personal grant for the manager.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createBackOffice } from '../lambdas/back-office/back-office';
import { loadRecords } from './bulk-records';
import type { DemoData } from './seed';

/** Records with a history (bulk-loaded, one every ~40 minutes over the past ~3 months). */
const HISTORY_COUNT = 3000;
/** The newest records, through the back office (with events). */
const RECENT_COUNT = 40;
const PLAYERS = ['Steve', 'Alex', 'Notch_Fan', 'xX_Sniper_Xx', 'QuietFox', 'BlockBuilder', 'HeadshotHana', 'Creeper99', 'NovaAim', 'PixelPete'];
const GAMES = [
  { game_category: 'Minecraft', game: 'Minecraft: Java Edition' },
  { game_category: 'Minecraft', game: 'Minecraft: Bedrock Edition' },
  { game_category: 'FPS', game: 'Counter-Strike 2' },
  { game_category: 'FPS', game: 'Valorant' },
  { game_category: 'FPS', game: 'Apex Legends' },
];
const RESULTS = ['clean', 'clean', 'clean', 'warning', 'cheating'] as const;
const DAY = 86_400_000;

export interface DemoBusinessData {
  readonly records: number;
  readonly sample_uuid: string;
}

export async function seedDemoBusinessData(client: DynamoDBDocumentClient, tables: { access: string; domain: string }, demo: DemoData): Promise<DemoBusinessData> {
  const office = createBackOffice(client, tables.access, undefined, tables.domain);
  const records = office.records!;
  const uuidOf = (i: number) => `USS-${String(20250000 + i).padStart(8, '0')}-Demo${String(i).padStart(8, '0')}`;
  const total = HISTORY_COUNT + RECENT_COUNT;
  const recordInput = (i: number) => ({
    uuid: uuidOf(i),
    player_name: `${PLAYERS[i % PLAYERS.length]}${i % 3 === 0 ? '' : `_${i % 97}`}`,
    ...GAMES[i % GAMES.length],
    checked_at: new Date(Date.now() - (total - i) * 2_400_000 - 600_000).toISOString(),
    result: RESULTS[i % RESULTS.length],
    checker_name: i % 2 === 0 ? 'Alex Checker' : 'Sam Reviewer',
    public_notes: RESULTS[i % RESULTS.length] === 'clean' ? 'No modifications found.' : 'See the organization for details.',
    internal_notes: 'Demo internal note (never exposed).',
    public: i % 10 !== 9,
  });
  await loadRecords(client, tables.domain, {
    partnerId: demo.partner_id,
    count: HISTORY_COUNT,
    input: recordInput,
    timeOf: (i) => new Date(Date.now() - (total - i) * 2_400_000),
  });
  for (let start = HISTORY_COUNT; start < total; start += 20) {
    await Promise.all(Array.from({ length: Math.min(20, total - start) }, (_, k) => records.put(demo.partner_id, recordInput(start + k))));
  }

  const owner = `partner:${demo.partner_id}`;
  const at = (days: number) => new Date(Date.now() + days * DAY).toISOString();
  const entitlements = office.entitlements!;
  await entitlements.grant({ owner, game: 'minecraft', units: 100, startsAt: at(-10), expiresAt: at(30) });
  for (let i = 0; i < 12; i += 1) await entitlements.use(owner, 'minecraft', 1);
  await entitlements.grant({ owner, game: 'fps', unlimited: true, startsAt: at(-1), expiresAt: at(7) });
  await entitlements.grant({ owner, game: 'minecraft', units: 50, startsAt: at(20), expiresAt: at(80) });
  await entitlements.grant({ owner, game: 'fps', units: 25, startsAt: at(-60), expiresAt: at(-5) });
  await entitlements.grant({ owner: `account:${demo.account_id}`, game: 'fps', units: 5, permanent: true });
  return { records: total, sample_uuid: uuidOf(0) };
}

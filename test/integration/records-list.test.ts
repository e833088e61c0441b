/**
 * GET /partners/{partner_id}/records through the local front and DynamoDB
 * Local: order, fields, paging, every filter and their combinations, every
 * validation code, the signed filter-bound cursor, and a full traversal
 * while records change concurrently.
 *
 * Records are seeded through the back office with a clock an hour in the
 * past (one second apart), so pages are far from the live end and a
 * traversal returns each record exactly once; the concurrent test uses the
 * real clock. Seeding is not what these tests are about: records are put
 * several at a time (test/support/concurrently.ts).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createBackOffice } from '../../lambdas/back-office/back-office';
import type { PublicRecord } from '../../lambdas/records/record-model';
import { concurrently } from '../support/concurrently';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;

interface Org {
  partnerId: string;
  keys: string[];
  next: number;
}

/** An organization with several `records:read` keys, used in turn so tests stay below each key's minute quota. */
async function createOrg(): Promise<Org> {
  const org = await createOrgWithManagerKey(stack.office, ['records:read']);
  const keys = [org.key.key];
  // One after the other: an account's key creations are conditioned on its key set, and concurrent ones only retry.
  for (let i = 0; i < 4; i += 1) {
    keys.push((await stack.office.keys.create({ accountId: org.account_id, partnerId: org.partner_id, scopes: ['records:read'] })).key);
  }
  return { partnerId: org.partner_id, keys, next: 0 };
}

interface Answer {
  status: number;
  code?: string;
  items: PublicRecord[];
  next: string | null;
  text: string;
}

async function list(org: Org, query = ''): Promise<Answer> {
  const key = org.keys[org.next++ % org.keys.length];
  const response = await stack.call(`/partners/${org.partnerId}/records${query ? `?${query}` : ''}`, { headers: bearer(key) });
  const text = await response.text();
  const body = JSON.parse(text) as { data?: { items: PublicRecord[]; next_cursor: string | null }; error?: { code: string } };
  return { status: response.status, code: body.error?.code, items: body.data?.items ?? [], next: body.data?.next_cursor ?? null, text };
}

/** Every page of a traversal with these filters (`onPage` sees each as it comes); `ended`: its last page had no next cursor. */
async function traverse(
  org: Org,
  filters: Record<string, string> = {},
  limit = 7,
  onPage?: (page: Answer) => void,
): Promise<{ items: PublicRecord[]; pages: number; ended: boolean }> {
  const items: PublicRecord[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query = new URLSearchParams({ ...filters, limit: String(limit), ...(cursor ? { cursor } : {}) });
    const page = await list(org, query.toString());
    expect(page.status, page.text).toBe(200);
    expect(page.items.length).toBeLessThanOrEqual(limit);
    items.push(...page.items);
    onPage?.(page);
    cursor = page.next;
    pages += 1;
  } while (cursor !== null && pages < 200);
  return { items, pages, ended: cursor === null };
}

const byListOrder = (a: PublicRecord, b: PublicRecord) => (a.updated_at === b.updated_at ? (a.id < b.id ? -1 : 1) : a.updated_at < b.updated_at ? -1 : 1);

const GAMES = [
  { game_category: 'Minecraft', game: 'Minecraft: Java Edition' },
  { game_category: 'minecraft', game: 'Minecraft: Bedrock Edition' },
  { game_category: 'FPS', game: 'Counter-Strike 2' },
  { game_category: 'Tactical Shooter', game: 'Valorant' },
];
const RESULTS = ['clean', 'warning', 'cheating'] as const;
const PLAYERS = ['Steve', 'STEVE', 'Steven', 'Ärger', 'ärger', 'Alex'];

let serial = 0;
function recordInput(i: number, overrides: Record<string, unknown> = {}) {
  serial += 1;
  return {
    uuid: `USS-${String(30000000 + serial).padStart(8, '0')}-List${String(serial).padStart(8, '0')}`,
    player_name: PLAYERS[i % PLAYERS.length],
    ...GAMES[i % GAMES.length],
    checked_at: '2026-10-01T10:00:00Z',
    result: RESULTS[i % RESULTS.length],
    checker_name: 'Alex Checker',
    public_notes: `Public note ${i}`,
    internal_notes: 'INTERNAL-NOTE-NEVER-SHOWN',
    staff_notes: 'STAFF-NOTE-NEVER-SHOWN',
    public: i % 5 !== 4,
    ...overrides,
  };
}

/**
 * Seed `count` records an hour in the past, one second apart (the back office's clock, one reading per write: writes
 * made several at a time still take distinct instants). Tests compare with the list order of what this returns.
 */
async function seed(partnerId: string, count: number): Promise<PublicRecord[]> {
  let at = Date.now() - 3_600_000;
  const office = createBackOffice(stack.client, stack.tables.access, () => new Date((at += 1000)), stack.tables.domain);
  return concurrently(count, async (i) => (await office.records!.put(partnerId, recordInput(i))) as PublicRecord);
}

let main: Org;
let seeded: PublicRecord[];
let other: Org;

beforeAll(async () => {
  stack = await startTestStack();
  [main, other] = await Promise.all([createOrg(), createOrg()]);
  [seeded] = await Promise.all([seed(main.partnerId, 48), seed(other.partnerId, 5)]);
});
afterAll(() => stack?.stop());

describe('order, fields and paging', () => {
  it('returns every record of the organization once, ascending by updated_at then id, with exactly the spec\u2019s fields', async () => {
    const { items, pages } = await traverse(main, {}, 7);
    expect(pages).toBe(7);
    expect(items.map((r) => r.id)).toEqual([...seeded].sort(byListOrder).map((r) => r.id));
    for (const item of items) {
      expect(Object.keys(item)).toEqual(['id', 'uuid', 'player_name', 'game_category', 'game', 'checked_at', 'result', 'result_label', 'checker_name', 'public_notes', 'updated_at']);
    }
    // Private records are the organization's own: listed too (only public lookup hides them).
    expect(items).toHaveLength(48);
  });

  it('orders records with the same updated_at by id', async () => {
    const org = await createOrg();
    const office = createBackOffice(stack.client, stack.tables.access, () => new Date('2026-11-01T00:00:00.000Z'), stack.tables.domain);
    const ids = await concurrently(6, async (i) => (await office.records!.put(org.partnerId, recordInput(i))).id as string);
    const { items } = await traverse(org, {}, 4);
    expect(items.map((r) => r.id)).toEqual([...ids].sort());
  });

  it('never shows internal or staff notes, the owner or index keys', async () => {
    const page = await list(main, 'limit=100');
    expect(page.items).toHaveLength(48);
    expect(page.text).not.toMatch(/NEVER-SHOWN|partner_id|rec_(order|org|result|game|player)|version|player_key|game_group|uuid_key/);
  });

  it('pages 20 by default; limit 1 and 100 are accepted; next_cursor is null on the last page', async () => {
    const first = await list(main);
    expect(first.items).toHaveLength(20);
    expect(first.next).toEqual(expect.any(String));
    expect((await list(main, 'limit=1')).items).toHaveLength(1);
    const all = await list(main, 'limit=100');
    expect(all.items).toHaveLength(48);
    expect(all.next).toBeNull();
    // Exactly a page's worth left: the page that returns them ends the traversal (no empty last page).
    const exact = await list(main, 'limit=48');
    expect(exact.items).toHaveLength(48);
    expect(exact.next).toBeNull();
  });

  it('lets limit change from page to page (it is not a filter)', async () => {
    const first = await list(main, 'limit=10');
    const second = await list(main, `limit=30&cursor=${encodeURIComponent(first.next!)}`);
    expect(second.status).toBe(200);
    expect([...first.items, ...second.items].map((r) => r.id)).toEqual([...seeded].sort(byListOrder).slice(0, 40).map((r) => r.id));
  });

  it('answers an organization without records with an empty page, not 404', async () => {
    const empty = await createOrg();
    const page = await list(empty);
    expect(page.status).toBe(200);
    expect(page.items).toEqual([]);
    expect(page.next).toBeNull();
  });

  it('lists only the organization\u2019s own records, and a deleted or moved-away record disappears at once', async () => {
    const org = await createOrg();
    const [kept, deleted, moved] = await seed(org.partnerId, 3);
    await stack.office.records!.delete(org.partnerId, deleted.id);
    await stack.office.records!.move(moved.id, other.partnerId);
    const page = await list(org);
    expect(page.items.map((r) => r.id)).toEqual([kept.id]);
    const others = await traverse(other, {}, 100);
    expect(others.items.map((r) => r.id)).toContain(moved.id);
    expect(others.items.map((r) => r.id)).not.toContain(kept.id);
  });
});

describe('filters', () => {
  const expected = (keep: (r: PublicRecord) => boolean) => [...seeded].filter(keep).sort(byListOrder).map((r) => r.id);

  it.each(RESULTS)('result=%s returns exactly the records with that result', async (result) => {
    const { items } = await traverse(main, { result }, 5);
    expect(items.map((r) => r.id)).toEqual(expected((r) => r.result === result));
  });

  it('game=minecraft is the Minecraft category (any letter case); game=fps every other game', async () => {
    const minecraft = await traverse(main, { game: 'minecraft' }, 9);
    expect(minecraft.items.map((r) => r.id)).toEqual(expected((r) => r.game_category.toLowerCase() === 'minecraft'));
    const fps = await traverse(main, { game: 'fps' }, 9);
    expect(fps.items.map((r) => r.id)).toEqual(expected((r) => r.game_category.toLowerCase() !== 'minecraft'));
    expect(new Set(fps.items.map((r) => r.game))).toEqual(new Set(['Counter-Strike 2', 'Valorant']));
  });

  it('player_name matches the whole name, case-insensitively (Unicode too), never a prefix', async () => {
    const steve = await traverse(main, { player_name: 'steve' }, 3);
    expect(steve.items.map((r) => r.id)).toEqual(expected((r) => r.player_name === 'Steve' || r.player_name === 'STEVE'));
    expect(steve.items.some((r) => r.player_name === 'Steven')).toBe(false);
    const umlaut = await traverse(main, { player_name: 'ÄRGER' }, 50);
    expect(umlaut.items).toHaveLength(16);
    // NFD input (A + combining diaeresis) is the same name.
    const decomposed = await list(main, `limit=100&player_name=${encodeURIComponent('A\u0308rger')}`);
    expect(decomposed.items).toHaveLength(16);
    expect((await list(main, 'player_name=Ste')).items).toEqual([]);
  });

  it('updated_after is an inclusive lower bound, in any offset', async () => {
    const sorted = [...seeded].sort(byListOrder);
    const pivot = sorted[30];
    const { items } = await traverse(main, { updated_after: pivot.updated_at }, 6);
    expect(items.map((r) => r.id)).toEqual(sorted.slice(30).map((r) => r.id));
    // The same instant written with an offset.
    const instant = new Date(pivot.updated_at);
    const shifted = new Date(instant.getTime() + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    const withOffset = await list(main, `limit=100&updated_after=${encodeURIComponent(shifted)}`);
    expect(withOffset.items.map((r) => r.id)).toEqual(sorted.slice(30).map((r) => r.id));
    // A microsecond after the pivot excludes it.
    const later = `${pivot.updated_at.slice(0, -1)}001Z`;
    expect((await list(main, `limit=100&updated_after=${encodeURIComponent(later)}`)).items.map((r) => r.id)).toEqual(sorted.slice(31).map((r) => r.id));
  });

  it('combines filters (AND), across pages', async () => {
    const { items } = await traverse(main, { result: 'warning', game: 'fps' }, 2);
    expect(items.map((r) => r.id)).toEqual(expected((r) => r.result === 'warning' && r.game_category.toLowerCase() !== 'minecraft'));
    const sorted = [...seeded].sort(byListOrder);
    const all = await traverse(main, { player_name: 'alex', result: 'cheating', updated_after: sorted[10].updated_at, game: 'fps' }, 1);
    expect(all.items.map((r) => r.id)).toEqual(
      sorted.slice(10).filter((r) => r.player_name === 'Alex' && r.result === 'cheating' && r.game_category.toLowerCase() !== 'minecraft').map((r) => r.id),
    );
  });
});

describe('validation', () => {
  it.each([
    ['limit=0', 'INVALID_LIMIT'],
    ['limit=101', 'INVALID_LIMIT'],
    ['limit=-1', 'INVALID_LIMIT'],
    ['limit=1.5', 'INVALID_LIMIT'],
    ['limit=ten', 'INVALID_LIMIT'],
    ['limit=', 'INVALID_LIMIT'],
    ['limit=020', 'INVALID_LIMIT'],
    ['cursor=', 'INVALID_CURSOR'],
    ['cursor=not-a-cursor', 'INVALID_CURSOR'],
    [`cursor=${'A'.repeat(300)}`, 'INVALID_CURSOR'],
    ['updated_after=yesterday', 'INVALID_DATE'],
    ['updated_after=2026-02-30T00:00:00Z', 'INVALID_DATE'],
    ['updated_after=2026-11-01', 'INVALID_DATE'],
    ['updated_after=2026-11-01T00:00:00', 'INVALID_DATE'],
    ['updated_after=', 'INVALID_DATE'],
    ['result=passed', 'INVALID_RESULT'],
    ['result=Clean', 'INVALID_RESULT'],
    ['result=', 'INVALID_RESULT'],
    ['game=valorant', 'INVALID_GAME'],
    ['game=', 'INVALID_GAME'],
    ['player_name=', 'INVALID_FIELD'],
    [`player_name=${'x'.repeat(121)}`, 'INVALID_FIELD'],
    ['player_name=a%00b', 'INVALID_FIELD'],
    ['player_name=a%0Ab', 'INVALID_FIELD'],
    ['sort=desc', 'UNKNOWN_PARAMETER'],
    ['Limit=5', 'UNKNOWN_PARAMETER'],
    ['limit=5&limit=6', 'DUPLICATE_PARAMETER'],
    ['result=clean&result=warning', 'DUPLICATE_PARAMETER'],
  ])('%s answers 422 %s', async (query, code) => {
    const answer = await list(main, query);
    expect(answer.status, answer.text).toBe(422);
    expect(answer.code).toBe(code);
  });

  it('accepts 120 characters of player name, counted as characters (not UTF-16 units)', async () => {
    expect((await list(main, `player_name=${'x'.repeat(120)}`)).status).toBe(200);
    expect((await list(main, `player_name=${encodeURIComponent('😀'.repeat(120))}`)).status).toBe(200);
  });
});

describe('the cursor', () => {
  async function firstCursor(org: Org, filters = '') {
    const page = await list(org, `limit=5${filters}`);
    expect(page.next).toEqual(expect.any(String));
    return page.next!;
  }

  it('is rejected when a filter changes, is added or is dropped', async () => {
    const cursor = encodeURIComponent(await firstCursor(main, '&result=clean'));
    for (const filters of ['result=warning', 'result=clean&game=fps', '', 'result=clean&updated_after=2020-01-01T00:00:00Z', 'result=clean&player_name=steve']) {
      const answer = await list(main, `${filters}${filters ? '&' : ''}cursor=${cursor}`);
      expect(answer.code, filters).toBe('INVALID_CURSOR');
    }
    expect((await list(main, `result=clean&cursor=${cursor}`)).status).toBe(200);
  });

  it('is rejected when any character of it is changed', async () => {
    const cursor = await firstCursor(main);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let at = 0; at < cursor.length; at += 3) {
      if (cursor[at] === '.') continue;
      const replacement = alphabet[(alphabet.indexOf(cursor[at]) + 1) % alphabet.length];
      const tampered = `${cursor.slice(0, at)}${replacement}${cursor.slice(at + 1)}`;
      expect((await list(main, `cursor=${encodeURIComponent(tampered)}`)).code).toBe('INVALID_CURSOR');
    }
  });

  it('is rejected when forged: a position encoded by hand, or a cursor of another organization', async () => {
    const cursor = await firstCursor(main);
    const [, mac] = cursor.split('.');
    const forged = `${Buffer.from('2020-01-01T00:00:00.000Z').toString('base64url')}.${mac}`;
    expect((await list(main, `cursor=${encodeURIComponent(forged)}`)).code).toBe('INVALID_CURSOR');
    const foreign = await firstCursor(other, '');
    expect((await list(main, `cursor=${encodeURIComponent(foreign)}`)).code).toBe('INVALID_CURSOR');
  });
});

describe('a traversal while records change', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('meets a change that commits late, behind the last record already returned (the settle mark)', async () => {
    const org = await createOrg();
    const office = stack.office.records!;
    // The records' changes and the pages' reads on a clock the test moves (Date alone is faked, timers stay real): the
    // first page is read a few milliseconds after the first change, as on a fast machine, however long the writes take
    // on a loaded one (the settle mark covers changes SETTLE_MS before a read, no more).
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: start });
    const created: PublicRecord[] = [];
    for (let i = 0; i < 30; i += 1) {
      vi.setSystemTime(start + i);
      created.push((await office.put(org.partnerId, recordInput(i))) as PublicRecord);
    }
    vi.setSystemTime(start + 30);
    const first = await list(org, 'limit=10');
    expect(first.items.map((r) => r.id)).toEqual(created.slice(0, 10).map((r) => r.id));
    // A change of record 25 that took its time before record 10's and becomes visible only now
    // (a slow commit): it lands behind the last record returned.
    const late = new Date(new Date(created[0].updated_at).getTime() + 1).toISOString();
    const slowWriter = createBackOffice(stack.client, stack.tables.access, () => new Date(late), stack.tables.domain);
    await slowWriter.records!.put(org.partnerId, { ...recordInput(25), uuid: created[25].uuid, public_notes: 'late change' });
    const seen = new Set(first.items.map((r) => r.id));
    let cursor = first.next;
    while (cursor !== null) {
      const page = await list(org, `limit=10&cursor=${encodeURIComponent(cursor)}`);
      for (const item of page.items) seen.add(item.id);
      cursor = page.next;
    }
    expect(seen.has(created[25].id)).toBe(true);
    expect(seen.size).toBe(30);
  });

  it('returns every record that exists throughout at least once, with changes and new records arriving meanwhile', async () => {
    // Prepare: 90 records that exist throughout, 10 that are deleted meanwhile. Real clock: the traversal runs into the
    // live end while the writers work.
    const org = await createOrg();
    const office = stack.office.records!;
    const stable = await concurrently(90, async (i) => (await office.put(org.partnerId, recordInput(i))) as PublicRecord);
    const doomed = await concurrently(10, async (i) => (await office.put(org.partnerId, recordInput(i))) as PublicRecord);

    // Act: three writers change records (a corrected result or note moves a record to the end of the list), delete the
    // doomed ones and add new ones while the traversal pages. They write until the traversal has met them at the live
    // end: ten pages among their changes whose next cursor the settle mark held back (a bare `<updated_at>` mark,
    // record-cursor.ts), records changing behind, at and ahead of the cursor. With no writer left, the traversal runs to
    // its last page. (A bound on the changes stops the writers too, so a traversal that never catches up still ends, and
    // the assertions below fail; before, the writers never stopped and the traversal was cut off at 200 pages.)
    const MAX_CHANGES = 2_000;
    let traversing = true;
    let heldBack = 0;
    let changes = 0;
    const writing = () => traversing && heldBack < 10 && changes < MAX_CHANGES;
    const writer = async (offset: number) => {
      let i = offset;
      while (writing()) {
        const target = stable[(i * 37) % stable.length];
        i += 1;
        await office.put(org.partnerId, { ...recordInput(i), uuid: target.uuid, result: RESULTS[i % 3], public_notes: `changed ${i}` });
        if (i % 9 === 0 && doomed.length > 0) await office.delete(org.partnerId, doomed.pop()!.id);
        if (i % 7 === 0) await office.put(org.partnerId, recordInput(i));
        changes += 1;
      }
    };
    const isBareMark = (cursor: string) => !Buffer.from(cursor.split('.')[0], 'base64url').toString('utf8').includes('#');
    const writers = [writer(0), writer(1000), writer(2000)];
    let result: { items: PublicRecord[]; pages: number; ended: boolean };
    try {
      result = await traverse(org, {}, 6, (page) => {
        if (page.next !== null && isBareMark(page.next) && page.items.some((r) => r.public_notes.startsWith('changed '))) heldBack += 1;
      });
    } finally {
      traversing = false;
      await Promise.all(writers);
    }

    // Assess: the traversal met the writers at the live end and ran to its last page; every record that existed
    // throughout came at least once.
    expect(changes).toBeGreaterThan(10);
    expect(changes).toBeLessThan(MAX_CHANGES);
    expect(heldBack).toBeGreaterThanOrEqual(10);
    expect(result.ended).toBe(true);
    const seen = new Set(result.items.map((r) => r.id));
    const missing = stable.filter((r) => !seen.has(r.id));
    expect(missing).toEqual([]);
    // Within a page, list order holds.
    expect(result.pages).toBeGreaterThan(90 / 6);
  }, 240_000);
});

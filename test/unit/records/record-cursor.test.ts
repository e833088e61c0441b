/**
 * The record list cursor and where the next page starts: signed positions
 * bound to the organization and filters, accepted under the current or the
 * previous secret only; updated_after as a list-order mark; the settle mark.
 */
import { describe, expect, it } from 'vitest';
import { cursorBinding, filtersOf, listOrderMark, nextPosition, SETTLE_MS } from '../../../lambdas/records/list-organization-records';
import { MAX_CURSOR_LENGTH, signCursor, verifyCursor } from '../../../lambdas/records/record-cursor';
import type { PageRead } from '../../../lambdas/records/record-list';

const KEY = Buffer.alloc(32, 1);
const OLD_KEY = Buffer.alloc(32, 2);
const POSITION = '2026-11-01T10:00:00.000Z#rec_0123456789abcdef0123';
const binding = cursorBinding('org_1', filtersOf({ result: 'clean' }));

describe('record cursor', () => {
  it('carries its position back under the same binding and secret', () => {
    expect(verifyCursor(signCursor(KEY, binding, POSITION), binding, { current: KEY })).toBe(POSITION);
  });

  it('is refused under another binding: another filter, an added filter, another organization', () => {
    const cursor = signCursor(KEY, binding, POSITION);
    for (const other of [
      cursorBinding('org_1', filtersOf({ result: 'warning' })),
      cursorBinding('org_1', filtersOf({ result: 'clean', game: 'fps' })),
      cursorBinding('org_1', filtersOf({})),
      cursorBinding('org_2', filtersOf({ result: 'clean' })),
    ]) {
      expect(verifyCursor(cursor, other, { current: KEY })).toBeUndefined();
    }
  });

  it('binds player_name as compared (letter case and Unicode form do not matter), and updated_after as an instant', () => {
    expect(cursorBinding('o', filtersOf({ player_name: 'ÄRGER' }))).toBe(cursorBinding('o', filtersOf({ player_name: 'A\u0308rger' })));
    expect(cursorBinding('o', filtersOf({ updated_after: '2026-11-01T12:00:00+02:00' }))).toBe(cursorBinding('o', filtersOf({ updated_after: '2026-11-01T10:00:00Z' })));
  });

  it('is refused under another secret, and accepted under the previous one after a rotation', () => {
    const cursor = signCursor(OLD_KEY, binding, POSITION);
    expect(verifyCursor(cursor, binding, { current: KEY })).toBeUndefined();
    expect(verifyCursor(cursor, binding, { current: KEY, previous: OLD_KEY })).toBe(POSITION);
  });

  it('is accepted during a two-step rotation by containers on either side of it', () => {
    // Step 1: the new value staged (AWSPENDING); step 2: it became current. A container that has read
    // step 2 signs with the new value; one still caching step 1 signs with the old value.
    const before = { current: OLD_KEY, pending: KEY };
    const after = { current: KEY, previous: OLD_KEY };
    expect(verifyCursor(signCursor(after.current, binding, POSITION), binding, before)).toBe(POSITION);
    expect(verifyCursor(signCursor(before.current, binding, POSITION), binding, after)).toBe(POSITION);
  });

  it('is refused when its position or MAC is changed, truncated or extended, or when it is too long', () => {
    const cursor = signCursor(KEY, binding, POSITION);
    const [position, mac] = cursor.split('.');
    const forgedPosition = Buffer.from('2020-01-01T00:00:00.000Z').toString('base64url');
    for (const bad of [
      `${forgedPosition}.${mac}`,
      `${position}.${mac.slice(0, -1)}`,
      `${position}.${mac}A`,
      `${position}${mac}`,
      `${position}.${mac}.${mac}`,
      `${position}.${'A'.repeat(22)}`,
      '',
      '.',
      'x'.repeat(MAX_CURSOR_LENGTH + 1),
    ]) {
      expect(verifyCursor(bad, binding, { current: KEY })).toBeUndefined();
    }
  });

  it('is refused when validly signed over something that is not a position', () => {
    expect(verifyCursor(signCursor(KEY, binding, 'ORGREC#x'), binding, { current: KEY })).toBeUndefined();
  });
});

describe('updated_after as a list-order mark', () => {
  it.each([
    ['2026-11-01T10:00:00Z', '2026-11-01T10:00:00.000Z'],
    ['2026-11-01T12:00:00.5+02:00', '2026-11-01T10:00:00.500Z'],
    ['2026-11-01T10:00:00.123000Z', '2026-11-01T10:00:00.123Z'],
    // Digits past the millisecond round up: the bound stays inclusive of exactly what is at or after it.
    ['2026-11-01T10:00:00.1230001Z', '2026-11-01T10:00:00.124Z'],
    ['2026-11-01T09:59:59.9999Z', '2026-11-01T10:00:00.000Z'],
  ])('%s → %s', (input, mark) => {
    expect(listOrderMark(input)).toBe(mark);
  });
});

describe('where the next page starts', () => {
  const READ_AT = Date.parse('2026-11-01T10:00:10.000Z');
  const settle = new Date(READ_AT - SETTLE_MS).toISOString();
  const page = (continueFrom: string | undefined, more = true): PageRead => ({ records: [], more, continueFrom, itemsRead: 0 });

  it('ends the traversal when nothing more follows', () => {
    expect(nextPosition(page(undefined, false), '', READ_AT)).toBeUndefined();
  });

  it('continues after the last item read when that is settled', () => {
    expect(nextPosition(page('2026-11-01T10:00:07.999Z#rec_aa'), '', READ_AT)).toBe('2026-11-01T10:00:07.999Z#rec_aa');
  });

  it('never passes the settle mark while that moves forward: a late commit behind the page is met again', () => {
    expect(nextPosition(page('2026-11-01T10:00:09.000Z#rec_aa'), '2026-11-01T10:00:01.000Z#rec_00', READ_AT)).toBe(settle);
  });

  it('passes it when staying would not move forward (no page repeats for ever)', () => {
    expect(nextPosition(page('2026-11-01T10:00:09.000Z#rec_aa'), '2026-11-01T10:00:08.500Z#rec_00', READ_AT)).toBe('2026-11-01T10:00:09.000Z#rec_aa');
  });
});

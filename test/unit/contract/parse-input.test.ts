/**
 * Input validated with a route's zod schema answers the spec's codes: the
 * code a field declares, UNKNOWN_FIELD for an undeclared field of a strict
 * body, the fallback otherwise — never zod's own message.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { ApiError } from '../../../lambdas/shared/errors';
import { parseInput, withErrorCode } from '../../../lambdas/shared/http/contract';

const query = z.object({
  limit: withErrorCode(z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(100)), 20), 'INVALID_LIMIT'),
  result: withErrorCode(z.optional(z.enum(['clean', 'warning', 'cheating'])), 'INVALID_RESULT'),
  note: z.optional(z.string().check(z.maxLength(3))),
});
const body = z.strictObject({ game: withErrorCode(z.enum(['minecraft', 'fps']), 'INVALID_GAME') });

function refusal(act: () => unknown): ApiError {
  try {
    act();
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('expected a refusal');
}

describe('parseInput', () => {
  it('returns the parsed, typed values and defaults', () => {
    expect(parseInput(query, { limit: '5', result: 'clean' }, 'INVALID_FIELD')).toEqual({ limit: 5, result: 'clean' });
    expect(parseInput(query, {}, 'INVALID_FIELD')).toEqual({ limit: 20 });
  });

  it.each([
    { input: { limit: '0' }, code: 'INVALID_LIMIT' },
    { input: { limit: '101' }, code: 'INVALID_LIMIT' },
    { input: { limit: '2.5' }, code: 'INVALID_LIMIT' },
    { input: { result: 'passed' }, code: 'INVALID_RESULT' },
    { input: { note: 'too long' }, code: 'INVALID_FIELD' },
  ])('answers $code for $input', ({ input, code }) => {
    const error = refusal(() => parseInput(query, input, 'INVALID_FIELD'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe(code);
    expect(error.message).not.toMatch(/expected|Too (small|big)|Invalid/);
  });

  it('answers UNKNOWN_FIELD for a field a strict body does not declare, and the field code otherwise', () => {
    expect(refusal(() => parseInput(body, { game: 'fps', holder_id: 'x' }, 'INVALID_FIELD')).code).toBe('UNKNOWN_FIELD');
    expect(refusal(() => parseInput(body, { game: 'chess' }, 'INVALID_FIELD')).code).toBe('INVALID_GAME');
  });
});

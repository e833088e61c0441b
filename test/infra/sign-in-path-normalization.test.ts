/**
 * The sign-in rule's path match against the spellings of the sign-in path a client can send as they are (issue 32,
 * finding 6). API Gateway may route `/v1//settings/api/session` to the sign-in method (it merges the slashes after the
 * stage, as LocalStack's parity fixes for REST APIs record), and a dot segment is a path a client may send unresolved;
 * a rule that compares the raw path with `/v1/settings/api/session` would let them through uncounted. The rule's own
 * statement (edgeRateRules, as synthesized) is evaluated here under WAF's documented transformations, applied from the
 * lowest priority up:
 *   URL_DECODE      percent-decoding;
 *   NORMALIZE_PATH  "removes multiple slashes, directory self-references, and directory back-references that are not
 *                   at the beginning of the input" (AWS WAF developer guide, Text transformations).
 * A model of WAF, not WAF: the deployed rule is checked by the smoke suite (scripts/smoke/sign-in-spellings.ts).
 */
import type * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { describe, expect, it } from 'vitest';
import { edgeRateRules, ROUTE_PATH_TRANSFORMATIONS } from '../../lib/constructs/edge-rate-rules';
import { SIGN_IN_PATH_SPELLINGS } from '../../scripts/smoke/sign-in-spellings';

type Transformation = wafv2.CfnWebACL.TextTransformationProperty;
type ByteMatch = wafv2.CfnWebACL.ByteMatchStatementProperty;

/** WAF's percent-decoding (an invalid escape stays as it is). */
function urlDecode(text: string): string {
  return text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** WAF's NORMALIZE_PATH as documented: repeated slashes merged, `.` segments dropped, `x/..` pairs removed; a `..` with nothing before it stays. */
function normalizePath(text: string): string {
  const absolute = text.startsWith('/');
  const kept: string[] = [];
  for (const segment of text.split('/').slice(absolute ? 1 : 0)) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..' && kept.length > 0 && kept[kept.length - 1] !== '..') kept.pop();
    else kept.push(segment);
  }
  return `${absolute ? '/' : ''}${kept.join('/')}`;
}

const TRANSFORM: Readonly<Record<string, (text: string) => string>> = { NONE: (text) => text, URL_DECODE: urlDecode, NORMALIZE_PATH: normalizePath };

function transformed(text: string, transformations: readonly Transformation[]): string {
  return [...transformations].sort((a, b) => a.priority - b.priority).reduce((value, { type }) => {
    const apply = TRANSFORM[type];
    if (!apply) throw new Error(`no model of ${type}`);
    return apply(value);
  }, text);
}

/** The sign-in rule's byte match on the URI path, as the web ACL gets it. */
function signInPathMatch(): ByteMatch {
  const rule = edgeRateRules({ surface: 'web', metricPrefix: 'test' }).rules.find((r) => r.name === 'sign-in-ip-minute');
  const scopeDown = (rule?.statement as wafv2.CfnWebACL.StatementProperty).rateBasedStatement as wafv2.CfnWebACL.RateBasedStatementProperty;
  const statements = ((scopeDown.scopeDownStatement as wafv2.CfnWebACL.StatementProperty).andStatement as wafv2.CfnWebACL.AndStatementProperty).statements as wafv2.CfnWebACL.StatementProperty[];
  const match = statements.map((statement) => statement.byteMatchStatement as ByteMatch | undefined).find((byteMatch) => byteMatch && 'uriPath' in (byteMatch.fieldToMatch as object));
  if (!match) throw new Error('the sign-in rule has no URI path match');
  return match;
}

/** Whether a STARTS_WITH byte match, with these transformations, matches the path as sent. */
const counts = (match: ByteMatch, path: string, transformations = match.textTransformations as Transformation[]) =>
  match.positionalConstraint === 'STARTS_WITH' && transformed(path, transformations).startsWith(match.searchString as string);

describe('the sign-in rule counts every spelling of the sign-in path', () => {
  const match = signInPathMatch();
  const stagePaths = SIGN_IN_PATH_SPELLINGS.map((spelling) => `/v1${spelling}`);

  it('decodes, then normalizes the path: two of the ten transformations WAF allows a statement', () => {
    expect(match.textTransformations).toEqual(ROUTE_PATH_TRANSFORMATIONS);
    expect(ROUTE_PATH_TRANSFORMATIONS).toEqual([
      { priority: 0, type: 'URL_DECODE' },
      { priority: 1, type: 'NORMALIZE_PATH' },
    ]);
    expect(ROUTE_PATH_TRANSFORMATIONS.length).toBeLessThanOrEqual(10);
  });

  it('counts //, /./ and /x/../ before the sign-in path, and the path itself', () => {
    // Act / Assess
    expect(stagePaths).toEqual(['/v1//settings/api/session', '/v1/./settings/api/session', '/v1/x/../settings/api/session']);
    for (const path of ['/v1/settings/api/session', ...stagePaths]) expect(counts(match, path), path).toBe(true);
  });

  it('let those spellings through uncounted with percent-decoding alone (the rule before NORMALIZE_PATH)', () => {
    for (const path of stagePaths) expect(counts(match, path, [{ priority: 0, type: 'URL_DECODE' }]), path).toBe(false);
  });

  it('decodes before it normalizes: an encoded dot segment is removed, which normalizing first would leave in place', () => {
    // Prepare
    const encoded = ['/v1/%2e/settings/api/session', '/v1/x/%2e%2e/settings/api/session', '/v1/%2F/settings/api/session'];
    const normalizeFirst: Transformation[] = [
      { priority: 0, type: 'NORMALIZE_PATH' },
      { priority: 1, type: 'URL_DECODE' },
    ];

    // Act / Assess
    for (const path of encoded) {
      expect(counts(match, path), path).toBe(true);
      expect(counts(match, path, normalizeFirst), path).toBe(false);
    }
  });

  it('still counts nothing but the sign-in path: its neighbours and a back-reference out of the stage stay apart', () => {
    for (const path of ['/v1/settings/api/keys', '/v1/settings/api/session/../keys', '/v1/settings/api/session-x/../../keys', '/../v1/settings/api/session']) {
      expect(counts(match, path), path).toBe(false);
    }
  });
});

/**
 * The smoke suite's command line: what it accepts, and what it refuses
 * before sending anything (a key over plain HTTP to another machine, a base
 * URL that is not the spec's `…/v1`, something that is not a live key).
 */
import { describe, expect, it } from 'vitest';
import { maskedKey, parseSmokeArgs, UsageError, type SmokeOptions } from '../../../scripts/smoke/options';

const KEY = `pak_live_${'ab12'.repeat(16)}`;

const parse = (argv: string[], env: Record<string, string> = {}) => parseSmokeArgs(argv, env) as SmokeOptions;

describe('smoke options', () => {
  it('reads every option of a run against a stage: WAF in front, timeouts in milliseconds, trailing slashes dropped', () => {
    const options = parse([
      '--base-url',
      'https://abc.execute-api.eu-west-1.amazonaws.com/v1/',
      '--key',
      KEY,
      '--partner-id',
      'org_1',
      '--web-base-url',
      'https://web.execute-api.eu-west-1.amazonaws.com/v1',
      '--check-waf',
      '--timeout',
      '2.5',
    ]);

    expect(options).toEqual({
      baseUrl: 'https://abc.execute-api.eu-west-1.amazonaws.com/v1',
      key: KEY,
      partnerId: 'org_1',
      webBaseUrl: 'https://web.execute-api.eu-west-1.amazonaws.com/v1',
      checkWaf: true,
      wafInFront: true,
      timeoutMs: 2500,
      burstDeadlineMs: 150_000,
      burstRate: 10,
    });
  });

  it.each(['http://127.0.0.1:3000/v1', 'http://localhost:3000/v1', 'http://[::1]:3000/v1'])('takes plain HTTP to this machine (%s), where the local front stands in for WAF', (url) => {
    const options = parse(['--base-url', url, '--key', KEY]);
    expect(options).toMatchObject({ baseUrl: url, wafInFront: false, checkWaf: false, timeoutMs: 10_000 });
    expect(options.webBaseUrl).toBeUndefined();
  });

  it('takes the key from SMOKE_API_KEY, keeping it out of the shell history; --key wins', () => {
    expect(parse(['--base-url', 'https://api.example.com/v1'], { SMOKE_API_KEY: KEY }).key).toBe(KEY);
    const other = `pak_live_${'0'.repeat(64)}`;
    expect(parse(['--base-url', 'https://api.example.com/v1', '--key', other], { SMOKE_API_KEY: KEY }).key).toBe(other);
  });

  it.each([
    ['no base URL', ['--key', KEY], /--base-url is required/],
    ['no key', ['--base-url', 'https://api.example.com/v1'], /--key \(or SMOKE_API_KEY\) is required/],
    ['plain HTTP to another machine (the key would cross a network in clear)', ['--base-url', 'http://api.example.com/v1', '--key', KEY], /must be an https:\/\/ URL/],
    ['a base URL without the version segment', ['--base-url', 'https://api.example.com/prod', '--key', KEY], /must end with the version segment \/v1/],
    ['a base URL with a query', ['--base-url', 'https://api.example.com/v1?x=1', '--key', KEY], /no query, fragment or credentials/],
    ['something that is not a URL', ['--base-url', 'api.example.com/v1', '--key', KEY], /is not a URL/],
    ['a web base URL over plain HTTP to another machine', ['--base-url', 'https://api.example.com/v1', '--key', KEY, '--web-base-url', 'http://web.example.com/v1'], /--web-base-url must be an https/],
    ['a key that is not a live key', ['--base-url', 'https://api.example.com/v1', '--key', 'pak_live_XYZ'], /must be a live key/],
    ['an empty --partner-id', ['--base-url', 'https://api.example.com/v1', '--key', KEY, '--partner-id', ' '], /--partner-id must not be empty/],
    ['a timeout that is not a positive number', ['--base-url', 'https://api.example.com/v1', '--key', KEY, '--timeout', '0'], /--timeout must be a positive number/],
    ['an unknown option', ['--base-url', 'https://api.example.com/v1', '--key', KEY, '--write'], /Unknown option '--write'/],
  ])('refuses %s', (_what, argv, message) => {
    expect(() => parseSmokeArgs(argv, {})).toThrow(UsageError);
    expect(() => parseSmokeArgs(argv, {})).toThrow(message);
  });

  it('answers help to --help', () => {
    expect(parseSmokeArgs(['--help'])).toBe('help');
  });

  it('masks the key to its prefix and last four characters', () => {
    expect(maskedKey(KEY)).toBe('pak_live_ab12…ab12');
    expect(maskedKey(KEY)).not.toContain(KEY.slice(13, -4));
  });
});

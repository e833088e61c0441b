/**
 * The deployed web side answers a settings path in web settings' shape (docs/web-settings.md "Shapes") whoever
 * answers: the web ACL's custom responses exactly `{code, message, request_id}` there (each of its answering rules counts
 * and labels, two rules after it answer by path: lib/constructs/edge-answer-shapes.ts), the player site's paths the web
 * side's body; API Gateway's gateway responses, one body per API and no VTL, the web side's body, which holds the
 * settings shape's fields beside the envelope (the limit lib/config/front-answers.ts encodes). The web ACL is evaluated
 * request by request (test/support/waf-evaluation.ts) as WAF evaluates it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { isSettingsPath } from '../../lambdas/shared/http/routes';
import { REQUEST_LIMITS } from '../../lambdas/shared/http/request-rules';
import { frontAnswers, frontAnswerShape, SETTINGS_SHAPE_EXACT } from '../../lib/config/front-answers';
import { SURFACE_PROFILES } from '../../lib/config/surfaces';
import { ANSWER_LABEL_NAMESPACE, MANAGED_RULE_LABELS, SETTINGS_URI_PATH_PATTERN } from '../../lib/constructs/edge-answer-shapes';
import { MANAGED_RULE_GROUPS } from '../../lib/constructs/edge-managed-rules';
import { evaluateWebAcl, type WafOutcome, type WafRequest } from '../support/waf-evaluation';
import { logicalIdByPath, resources, restApiLogicalId, stage } from './support';

type Json = Record<string, any>;

const webAcl = (surface: 'web' | 'partner'): Json =>
  resources(stage('dev').statelessTemplate, 'AWS::WAFv2::WebACL')[
    logicalIdByPath(stage('dev').statelessTemplate, 'AWS::WAFv2::WebACL', `/${SURFACE_PROFILES[surface].edgeConstructId}/WebAcl`)
  ].Properties as Json;

/** Web settings' error body exactly: the three fields, nothing beside them. */
const settingsBody = (code: string) => ({ code, message: expect.any(String), request_id: 'edge' });
/** The web side's body elsewhere: the envelope with the code and message on top too. */
const webBody = (code: string) => ({ ok: false, code, message: expect.any(String), error: { code, message: expect.any(String) }, request_id: 'edge' });

function blocked(outcome: WafOutcome) {
  expect(outcome.action).toBe('block');
  return outcome as Extract<WafOutcome, { action: 'block' }>;
}

const KEY = `pak_live_${'0'.repeat(64)}`;
const SETTINGS = '/v1/settings/api/keys';
const PLAYER = '/v1/join/abc';

beforeAll(() => {
  stage('dev');
}, 300_000);

describe('the web ACL of the web side answers a settings path in web settings’ shape, the player site in the web side’s', () => {
  it.each([
    ['a key in the query', { method: 'GET', queryString: `api_key=${KEY}` }, 'credentials-in-url', 400, 'CREDENTIALS_IN_URL'],
    ['a path over the limit', { method: 'GET', pathTail: `/${'p'.repeat(REQUEST_LIMITS.pathChars)}` }, 'path-too-long', 414, 'PATH_TOO_LONG'],
    ['a query over the limit', { method: 'GET', queryString: `q=${'a'.repeat(REQUEST_LIMITS.queryChars)}` }, 'query-too-long', 414, 'QUERY_TOO_LONG'],
    ['an address over web-ip-minute', { method: 'GET', overLimit: ['web-ip-minute'] }, 'web-ip-minute', 429, 'RATE_LIMITED'],
    ['a body over 8 KB (the core rule set’s SizeRestrictions_BODY, by its label)', { method: 'POST', managedLabels: [MANAGED_RULE_LABELS.AWSManagedRulesCommonRuleSet.SizeRestrictions_BODY] }, 'aws-common-rule-set-SizeRestrictions_BODY', 413, 'BODY_TOO_LARGE'],
  ] as const)('%s: %s answers %i %s, by path', (_what, request, rule, status, code) => {
    const acl = webAcl('web');
    const send = (path: string): WafRequest => ({ ...request, uriPath: `${path}${'pathTail' in request ? request.pathTail : ''}` });

    const onSettings = blocked(evaluateWebAcl(acl, send(SETTINGS)));
    const onPlayer = blocked(evaluateWebAcl(acl, send(PLAYER)));

    expect([onSettings.rule, onSettings.response?.status, onSettings.response?.body]).toEqual([`${rule}-settings`, status, settingsBody(code)]);
    expect([onPlayer.rule, onPlayer.response?.status, onPlayer.response?.body]).toEqual([`${rule}-answer`, status, webBody(code)]);
    // The same headers either way (Retry-After and the policy on a 429, the edge's Cache-Control and X-Request-Id).
    expect(onSettings.response?.headers).toEqual(onPlayer.response?.headers);
    expect(onSettings.response?.headers).toMatchObject({ 'Cache-Control': 'no-store', 'X-Request-Id': 'edge' });
  });

  it('answers sign-in attempts over sign-in-ip-minute on the sign-in route in web settings’ shape, naming the policy', () => {
    const outcome = blocked(evaluateWebAcl(webAcl('web'), { method: 'POST', uriPath: '/v1/settings/api/session', overLimit: ['sign-in-ip-minute'] }));

    expect(outcome.rule).toBe('sign-in-ip-minute-settings');
    expect(outcome.response).toMatchObject({ status: 429, body: settingsBody('RATE_LIMITED'), headers: { 'Retry-After': '60', 'X-RateLimit-Policy': 'sign-in-ip-minute' } });
  });

  it('keeps the order of the rules: a key in the URL is answered first, whatever else the request breaks; an address over its limit before the managed groups', () => {
    const acl = webAcl('web');
    const everything: WafRequest = {
      method: 'POST',
      uriPath: `${SETTINGS}/${'p'.repeat(REQUEST_LIMITS.pathChars)}`,
      queryString: `api_key=${KEY}`,
      overLimit: ['web-ip-minute'],
      managedLabels: [MANAGED_RULE_LABELS.AWSManagedRulesCommonRuleSet.SizeRestrictions_BODY],
    };

    expect(blocked(evaluateWebAcl(acl, everything)).rule).toBe('credentials-in-url-settings');
    expect(blocked(evaluateWebAcl(acl, { ...everything, queryString: undefined, uriPath: SETTINGS })).rule).toBe('web-ip-minute-settings');
    expect(evaluateWebAcl(acl, { method: 'GET', uriPath: SETTINGS }).action).toBe('allow');
  });

  it('leaves a managed block without a spec code to WAF’s default block (API Gateway’s WAF_FILTERED answer, one body per API)', () => {
    const outcome = blocked(evaluateWebAcl(webAcl('web'), { method: 'GET', uriPath: SETTINGS, managedLabels: ['awswaf:managed:aws:known-bad-inputs:Log4JRCE_Header'] }));

    expect(outcome.rule).toBe('aws-known-bad-inputs/Log4JRCE_HEADER');
    expect(outcome.response).toBeUndefined();
  });

  it('calls a settings path exactly what the functions call one: the raw path below the stage, /settings then / or its end', () => {
    const regex = new RegExp(SETTINGS_URI_PATH_PATTERN);
    const paths = ['/settings', '/settings/', '/settings/api/keys', '/settingsx', '/settings-page', '/join/abc', '/', '/me', '//settings/api/keys', '/x/../settings', '/%73ettings'];
    for (const path of paths) expect(regex.test(`/v1${path}`), path).toBe(isSettingsPath(path));
    expect(regex.test('/settings/api/keys'), 'outside the stage').toBe(false);
  });

  it('answers every rule that counts and labels, at the two priorities after it, and gives no settings path the web side’s body', () => {
    const acl = webAcl('web');
    const rules = acl.Rules as Json[];
    const byPriority = new Map(rules.map((rule) => [rule.Priority as number, rule]));
    const labelled = rules.filter((rule) => rule.RuleLabels);
    expect(labelled.map((rule) => rule.Name)).toEqual(['credentials-in-url', 'path-too-long', 'query-too-long', 'web-ip-minute', 'sign-in-ip-minute']);
    for (const rule of labelled) {
      const label = { LabelMatchStatement: { Scope: 'LABEL', Key: `${ANSWER_LABEL_NAMESPACE}:${rule.Name}` } };
      expect(rule.Action, rule.Name).toEqual({ Count: {} });
      expect(rule.RuleLabels).toEqual([{ Name: label.LabelMatchStatement.Key }]);
      expect(label.LabelMatchStatement.Key).toMatch(/^[0-9A-Za-z_\-:]{1,1024}$/);
      const [settings, other] = [byPriority.get(rule.Priority + 1)!, byPriority.get(rule.Priority + 2)!];
      expect(settings.Statement.AndStatement.Statements).toEqual([label, { RegexMatchStatement: expect.objectContaining({ FieldToMatch: { UriPath: {} } }) }]);
      expect(other.Statement).toEqual(label);
    }
    // Every custom response: a settings answer (its statement holds the settings path) with the settings body, or one a
    // settings answer runs before.
    for (const rule of rules.filter((r) => r.Action?.Block?.CustomResponse)) {
      const body = JSON.parse(acl.CustomResponseBodies[rule.Action.Block.CustomResponse.CustomResponseBodyKey].Content) as Json;
      if (rule.Name.endsWith('-settings')) {
        expect(JSON.stringify(rule.Statement), rule.Name).toContain(JSON.stringify(SETTINGS_URI_PATH_PATTERN));
        expect(body, rule.Name).toEqual(settingsBody(body.code));
      } else {
        expect(byPriority.get(rule.Priority - 1)?.Name, rule.Name).toBe(rule.Name.replace(/-answer$/, '-settings'));
        expect(body, rule.Name).toEqual(webBody(body.code));
      }
    }
  });

  it('counts the core rule set’s rules that answer with a spec code, and knows each one’s AWS label', () => {
    const acl = webAcl('web');
    const crs = (acl.Rules as Json[]).find((rule) => rule.Statement.ManagedRuleGroupStatement?.Name === 'AWSManagedRulesCommonRuleSet')!;
    const withCode = MANAGED_RULE_GROUPS.flatMap((group) => group.rules.filter((rule) => rule.web === 'block' && rule.code && rule.code !== 'REQUEST_BLOCKED').map((rule) => [group.name, rule.name] as const));
    expect(withCode.map(([, name]) => name).sort()).toEqual(['SizeRestrictions_BODY', 'SizeRestrictions_QUERYSTRING', 'SizeRestrictions_URIPATH']);
    for (const [group, name] of withCode) {
      expect(MANAGED_RULE_LABELS[group]?.[name], name).toMatch(/^awswaf:managed:aws:core-rule-set:SizeRestrictions_(?:Body|QueryString|URIPath)$/);
      expect(crs.Statement.ManagedRuleGroupStatement.RuleActionOverrides.find((o: Json) => o.Name === name).ActionToUse, name).toEqual({ Count: {} });
    }
  });

  it('leaves the partner API’s web ACL as it was: its rules block with the envelope themselves, no label, no answer by path', () => {
    const acl = webAcl('partner');
    for (const rule of acl.Rules as Json[]) {
      expect(rule.RuleLabels, rule.Name).toBeUndefined();
      expect(JSON.stringify(rule.Statement), rule.Name).not.toContain('LabelMatchStatement');
    }
    expect(Object.keys(acl.CustomResponseBodies).filter((key) => key.endsWith('_SETTINGS'))).toEqual([]);
  });
});

describe('API Gateway’s gateway responses: one body per API, which holds web settings’ shape on the web side', () => {
  const templatesOf = (surface: 'web' | 'partner') => {
    const template = stage('dev').statelessTemplate;
    const api = restApiLogicalId(template, surface);
    return Object.values(resources(template, 'AWS::ApiGateway::GatewayResponse'))
      .filter((response) => (response.Properties.RestApiId as Json).Ref === api)
      .map((response) => ({ type: String(response.Properties.ResponseType), body: JSON.parse(String((response.Properties.ResponseTemplates as Json)['application/json'])) as Json }));
  };

  it('declares the limit: the web ACL’s answers follow the path, API Gateway’s cannot (no VTL in gateway response templates)', () => {
    expect(SETTINGS_SHAPE_EXACT).toEqual({ edge: true, gateway: false });
    expect(frontAnswerShape('edge', '/settings/api/keys')).toBe('settings');
    expect(frontAnswerShape('gateway', '/settings/api/keys')).toBe('web');
    expect(frontAnswerShape('edge', '/join/abc')).toBe('web');
    expect(frontAnswerShape('edge', '/me')).toBe('api');
  });

  it('answers every gateway response of the web API with web settings’ code, message and request id at the top level, the envelope beside them', () => {
    const templates = templatesOf('web');
    expect(templates.length).toBeGreaterThan(5);
    for (const { type, body } of templates) {
      expect(body, type).toEqual({ ok: false, code: body.code, message: expect.any(String), error: { code: body.code, message: body.message }, request_id: '$context.requestId' });
    }
    // Every (status, code) they answer on an operation is declared (the settings document's GatewayError schemas accept either body).
    const declared = new Set(frontAnswers('web').map((answer) => answer.code));
    for (const { body } of templates) if (body.code !== 'NOT_FOUND') expect(declared.has(body.code), body.code).toBe(true);
  });

  it('answers the partner API’s with the envelope alone', () => {
    for (const { type, body } of templatesOf('partner')) expect(Object.keys(body).sort(), type).toEqual(['error', 'ok', 'request_id']);
  });
});

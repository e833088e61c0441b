/**
 * Every answer a front door gives without a function (API Gateway's gateway responses, the WAF web ACL's custom
 * responses) is one of lib/config/front-answers.ts, which the OpenAPI documents declare on every operation of the
 * surface (and the local front, which stands in for both, gives its own parser refusals too), and the list holds
 * nothing they do not give: a new gateway response or WAF rule cannot answer a code the
 * documents do not hold.
 */
import { describe, expect, it } from 'vitest';
import { FRONT_BODY_DEADLINE_ANSWER, frontAnswers } from '../../lib/config/front-answers';
import { SURFACES, surfaceNamePrefix } from '../../lib/config/surfaces';
import { PARSER_ERROR_STATUS } from '../../local/http-front';
import { resources, restApiLogicalId, stage } from './support';

type Json = Record<string, any>;
const codeOfBody = (content: string) => {
  const body = JSON.parse(content) as { code?: string; error?: { code?: string } };
  return body.error?.code ?? body.code;
};

describe.each(SURFACES)('the %s front door', (surface) => {
  it("answers exactly the documented codes from API Gateway's gateway responses and the web ACL's custom responses", () => {
    const { statelessTemplate: template } = stage('dev');
    // The local front's own: its body deadline, and the requests Node's parser refuses (REQUEST_REJECTED at Node's status).
    const produced = new Set<string>([
      `${FRONT_BODY_DEADLINE_ANSWER.code}@${FRONT_BODY_DEADLINE_ANSWER.status}`,
      ...Object.values(PARSER_ERROR_STATUS).map((status) => `REQUEST_REJECTED@${status}`),
    ]);

    const api = restApiLogicalId(template, surface);
    const responses = Object.values(resources(template, 'AWS::ApiGateway::GatewayResponse')).filter((r) => (r.Properties.RestApiId as Json).Ref === api);
    expect(responses.length).toBeGreaterThan(5);
    for (const response of responses) {
      const code = codeOfBody(String((response.Properties.ResponseTemplates as Json)['application/json']));
      if (code === 'NOT_FOUND') continue; // paths no operation has
      // DEFAULT_* keep API Gateway's status: the statuses front-answers.ts lists for the family.
      const type = String(response.Properties.ResponseType);
      const statuses = response.Properties.StatusCode ? [Number(response.Properties.StatusCode)] : type === 'DEFAULT_4XX' ? [400, 403] : [500];
      for (const status of statuses) produced.add(`${code}@${status}`);
    }

    const acls = Object.values(resources(template, 'AWS::WAFv2::WebACL')).filter((acl) => acl.Properties.Name === `${surfaceNamePrefix('dev', surface)}-edge`);
    expect(acls).toHaveLength(1);
    const bodies = acls[0].Properties.CustomResponseBodies as Record<string, { Content: string }>;
    const visit = (node: unknown): void => {
      if (!node || typeof node !== 'object') return;
      const response = (node as Json).CustomResponse as { ResponseCode?: number; CustomResponseBodyKey?: string } | undefined;
      if (response?.CustomResponseBodyKey) produced.add(`${codeOfBody(bodies[response.CustomResponseBodyKey].Content)}@${response.ResponseCode}`);
      for (const value of Object.values(node)) visit(value);
    };
    visit(acls[0].Properties.Rules);

    expect([...produced].sort()).toEqual(frontAnswers(surface).map((answer) => `${answer.code}@${answer.status}`).sort());
  });
});

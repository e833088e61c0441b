/** The docs' endpoint lists are rendered from the route table and the contracts: a route appears with no hand edit. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../../lambdas/service/routes';
import type { RouteDefinition } from '../../../lambdas/shared/http/routes';
import { renderRouteSection, ROUTE_SECTIONS, withRouteSections } from '../../../scripts/route-docs';

describe.each(Object.entries(ROUTE_SECTIONS).map(([name, section]) => ({ name, file: section.file })))('$file: the $name endpoints', ({ name, file }) => {
  it('are exactly what the route table renders (run npm run openapi after changing a route)', () => {
    expect(readFileSync(join(import.meta.dirname, '..', '..', '..', file), 'utf8')).toContain(renderRouteSection(name));
  });
});

describe('withRouteSections', () => {
  it('lists a new route of the section, with its scope', () => {
    const summary = { id: 'invitation-summary', method: 'GET', path: '/partners/{partner_id}/invitations/{invitation_id}/summary', group: 'invitations', auth: 'key', scope: 'invitations:read', partnerBound: true, query: [], body: 'none' };
    const routes = [...ROUTES, summary as unknown as RouteDefinition];
    const page = withRouteSections(`x\n${renderRouteSection('invitations')}\ny`, routes);
    expect(page).toContain('| `GET /partners/{partner_id}/invitations/{invitation_id}/summary` | `invitations:read` |');
    expect(page.startsWith('x\n') && page.endsWith('\ny')).toBe(true);
  });
});

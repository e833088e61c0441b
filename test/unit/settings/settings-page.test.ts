/**
 * The settings page as served: one HTML document whose inline script and
 * style are exactly the ones its content security policy allows by hash,
 * with nothing loaded from anywhere, no inline handlers or style attributes
 * (the policy would refuse them), and forms that cannot be sent natively.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ORGANIZATION_SCOPES } from '../../../lambdas/shared/identity/scopes';
import { settingsPage } from '../../../lambdas/settings/settings-page';

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

async function servedPage() {
  // Prepare // Act
  const result = await settingsPage({} as Parameters<typeof settingsPage>[0]);
  const html = String(result.data);
  const policy = Object.fromEntries(
    (result.headers?.['Content-Security-Policy'] ?? '').split(';').map((directive) => {
      const [name, ...values] = directive.trim().split(/\s+/);
      return [name, values.join(' ')];
    }),
  );
  return { result, html, policy };
}

describe('the settings page', () => {
  it('is a page whose one script and one style are the ones the policy allows by hash', async () => {
    const { result, html, policy } = await servedPage();

    // Assess
    expect(result.page).toBe(true);
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
    expect(scripts).toHaveLength(1);
    expect(styles).toHaveLength(1);
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html.match(/<style/g)).toHaveLength(1);
    expect(policy).toEqual({
      'default-src': "'none'",
      'script-src': sha256(scripts[0]),
      'style-src': sha256(styles[0]),
      'connect-src': "'self'",
      'base-uri': "'none'",
      'form-action': "'none'",
      'frame-ancestors': "'none'",
    });
  });

  it('loads nothing, carries no inline handler or style attribute, and posts no form anywhere', async () => {
    const { html } = await servedPage();

    // Assess
    expect(html).not.toMatch(/\s(src|href|action)=/i);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toMatch(/\sstyle=/i);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|localStorage|sessionStorage/);
    // Every form is sent by the script; natively it would be a POST (never a query string), which the policy refuses.
    const forms = [...html.matchAll(/<form\b[^>]*>/g)].map((m) => m[0]);
    expect(forms.length).toBeGreaterThan(0);
    for (const form of forms) expect(form).toMatch(/method="post"/);
  });

  it('offers each scope of the scopes table once, and labels every input', async () => {
    const { html } = await servedPage();

    // Assess
    expect([...html.matchAll(/name="scope" value="([^"]+)"/g)].map((m) => m[1])).toEqual([...ORGANIZATION_SCOPES]);
    const ids = [...html.matchAll(/<input\b[^>]*\bid="([^"]+)"/g)].map((m) => m[1]);
    for (const id of ids) expect(html, id).toContain(`for="${id}"`);
    // Scope checkboxes have no id: each is inside its label.
    expect(html.match(/<label class="check"><input type="checkbox" name="scope"/g)).toHaveLength(ORGANIZATION_SCOPES.length);
  });
});

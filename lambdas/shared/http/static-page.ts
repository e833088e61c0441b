/**
 * A static page of the web side (the player site's join page, the settings
 * page): one HTML document whose only script and style are inline, allowed
 * by their SHA-256 hashes in a `default-src 'none'` content security policy
 * that also forbids framing, `<base>`, form posts and any origin but its own.
 * The script and style are a page's bundled browser code (scripts/page-bundles.ts);
 * the hashes are computed here, once when the module loads, over exactly the
 * text served.
 */
import { createHash } from 'node:crypto';

export interface StaticPage {
  readonly html: string;
  readonly headers: Readonly<Record<string, string>>;
}

const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

export function staticPage(parts: { title: string; style: string; body: string; script: string }): StaticPage {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${parts.title}</title>
<style>${parts.style}</style>
</head>
<body data-state="loading">${parts.body}
<script>${parts.script}</script>
</body>
</html>
`;
  return {
    html,
    headers: {
      'Content-Security-Policy': [
        "default-src 'none'",
        `script-src ${hash(parts.script)}`,
        `style-src ${hash(parts.style)}`,
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
      ].join('; '),
    },
  };
}

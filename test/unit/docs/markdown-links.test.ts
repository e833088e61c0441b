/**
 * Every Markdown page of the repository links only within it: a relative link (inline `[text](target)`, image
 * `![alt](target)` or reference definition `[x]: target`) must resolve inside the repository root to a file or
 * directory that exists and that git does not ignore (a clone has it). `http(s):`, `mailto:` and pure `#anchor` links
 * are not checked; `#fragment` and `?query` are stripped; code (fenced blocks and inline spans) is not read as links,
 * and a fence left open (the rest of the page rendered as code) is a fault too.
 * And README.md stays a front page: the two commands near the top, at most 250 lines.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '..', '..', '..');

function git(args: readonly string[], input?: string): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024 });
}

/** Markdown files tracked by git (still present in the working tree), outside node_modules. */
function markdownFiles(): string[] {
  return git(['ls-files', '-z', '--', '*.md'])
    .split('\0')
    .filter((file) => file !== '' && !file.split('/').includes('node_modules') && existsSync(join(ROOT, file)));
}

interface FoundLink {
  readonly line: number;
  readonly target: string;
}

const INLINE_LINK = /\[[^\]]*\]\(\s*(<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;
const REFERENCE_DEFINITION = /^ {0,3}\[(?!\^)[^\]]+\]:\s*(<[^>]*>|\S+)/; // not a footnote `[^1]: …`
const FENCE = /^\s*(`{3,}|~{3,})/; // list items indent their fences

/**
 * The link targets of a Markdown text with their 1-based line numbers (code blocks and code spans skipped), and the
 * line of a code fence the text never closes (everything after it would read as code, its links unchecked).
 */
function scan(text: string): { links: FoundLink[]; unclosedFence?: number } {
  const links: FoundLink[] = [];
  let fence: { marker: string; line: number } | undefined;
  text.split(/\r?\n/).forEach((raw, index) => {
    const opening = FENCE.exec(raw);
    if (fence !== undefined) {
      if (opening && opening[1][0] === fence.marker[0] && opening[1].length >= fence.marker.length && raw.trim() === opening[1]) fence = undefined;
      return;
    }
    if (opening) {
      fence = { marker: opening[1], line: index + 1 };
      return;
    }
    // Inline code spans are not links: replace them by a neutral word, keeping the brackets around them.
    const line = raw.replace(/(`+)[^`]*?\1/g, 'code');
    const definition = REFERENCE_DEFINITION.exec(line);
    if (definition) links.push({ line: index + 1, target: unwrap(definition[1]) });
    for (const match of line.matchAll(INLINE_LINK)) links.push({ line: index + 1, target: unwrap(match[1]) });
  });
  return fence === undefined ? { links } : { links, unclosedFence: fence.line };
}

function findLinks(text: string): FoundLink[] {
  return scan(text).links;
}

function unwrap(target: string): string {
  return target.startsWith('<') && target.endsWith('>') ? target.slice(1, -1) : target;
}

type LinkVerdict = { readonly kind: 'skip' } | { readonly kind: 'path'; readonly path: string } | { readonly kind: 'bad'; readonly why: string };

/** What a link target of `file` (relative to the root) names: an external/anchor link to skip, a repository path, or a fault. */
function classify(file: string, target: string, root = ROOT): LinkVerdict {
  if (/^(https?:|mailto:)/i.test(target)) return { kind: 'skip' };
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return { kind: 'bad', why: 'leaves the repository (scheme)' };
  const bare = target.replace(/[?#].*$/s, '');
  if (bare === '') return { kind: 'skip' }; // a pure #anchor (or ?query) on the same page
  if (bare.startsWith('/')) return { kind: 'bad', why: 'absolute path: leaves the repository' };
  let decoded: string;
  try {
    decoded = decodeURIComponent(bare);
  } catch {
    return { kind: 'bad', why: 'malformed percent-encoding' };
  }
  const absolute = resolve(root, dirname(file), decoded);
  const inside = relative(root, absolute);
  if (inside === '') return { kind: 'path', path: '.' };
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) return { kind: 'bad', why: 'outside the repository' };
  return { kind: 'path', path: inside.split(sep).join('/') };
}

/** Repository paths git ignores and does not track (a clone does not have them). */
function ignoredPaths(paths: readonly string[]): Set<string> {
  if (paths.length === 0) return new Set();
  try {
    // A tracked file is never reported (a clone has it), even where an ignore pattern matches it.
    const out = git(['check-ignore', '--stdin', '-z'], paths.join('\0') + '\0');
    return new Set(out.split('\0').filter(Boolean));
  } catch (error) {
    // Exit status 1: none of them is ignored.
    if ((error as { status?: number }).status === 1) return new Set();
    throw error;
  }
}

function brokenLinks(): string[] {
  const problems: string[] = [];
  const existing: { where: string; target: string; path: string }[] = [];
  for (const file of markdownFiles()) {
    const { links, unclosedFence } = scan(readFileSync(join(ROOT, file), 'utf8'));
    if (unclosedFence !== undefined) problems.push(`${file}:${unclosedFence} a code fence never closed`);
    for (const { line, target } of links) {
      const where = `${file}:${line}`;
      const verdict = classify(file, target);
      if (verdict.kind === 'skip') continue;
      if (verdict.kind === 'bad') problems.push(`${where} ${target} (${verdict.why})`);
      else if (!existsSync(join(ROOT, verdict.path))) problems.push(`${where} ${target} (no such file or directory)`);
      else existing.push({ where, target, path: verdict.path });
    }
  }
  const ignored = ignoredPaths([...new Set(existing.map((link) => link.path).filter((path) => path !== '.'))]);
  for (const { where, target, path } of existing) {
    if (ignored.has(path)) problems.push(`${where} ${target} (ignored by git: a clone does not have it)`);
  }
  return problems.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

describe('Markdown links', () => {
  it('finds inline, image and reference links, outside code, with their lines', () => {
    const text = [
      'See [the API](docs/openapi.json) and ![a picture](img/a.png "title").',
      '`[not a link](nowhere.md)` and [`code` text](docs/local.md#run)',
      '```sh',
      '[inside a fence](nowhere.md)',
      '```',
      '[ref]: ../outside.md',
      '[wrapped](<docs/with space.md>)',
      '[^1]: a footnote, not a link',
      '   ```ts',
      '   x[0](y);',
      '   ```',
    ].join('\n');
    expect(findLinks(text)).toEqual([
      { line: 1, target: 'docs/openapi.json' },
      { line: 1, target: 'img/a.png' },
      { line: 2, target: 'docs/local.md#run' },
      { line: 6, target: '../outside.md' },
      { line: 7, target: 'docs/with space.md' },
    ]);
  });

  it('tells a code fence left open', () => {
    expect(scan('```sh\nnpm start\n```\n').unclosedFence).toBeUndefined();
    expect(scan('text\n```sh\nnpm start\n\n[a](b.md)\n').unclosedFence).toBe(2);
  });

  it('skips web, mail and anchor links; strips fragments and queries; refuses what leaves the root', () => {
    const root = resolve('/repo');
    expect(classify('README.md', 'https://example.com/x', root)).toEqual({ kind: 'skip' });
    expect(classify('README.md', 'mailto:a@b.c', root)).toEqual({ kind: 'skip' });
    expect(classify('README.md', '#quick-start', root)).toEqual({ kind: 'skip' });
    expect(classify('docs/a.md', 'local.md#run?x=1', root)).toEqual({ kind: 'path', path: 'docs/local.md' });
    expect(classify('docs/a.md', '../README.md', root)).toEqual({ kind: 'path', path: 'README.md' });
    expect(classify('docs/a.md', '../../shared/spec/api-v1.md', root).kind).toBe('bad');
    expect(classify('README.md', '../shared/spec/api-v1.md', root).kind).toBe('bad');
    expect(classify('README.md', '/etc/passwd', root).kind).toBe('bad');
    expect(classify('README.md', 'file:///etc/passwd', root).kind).toBe('bad');
  });

  it('every relative link of every tracked Markdown file names a file or directory inside the repository', () => {
    expect(markdownFiles()).toContain('README.md');
    expect(brokenLinks()).toEqual([]);
  });
});

describe('README.md', () => {
  const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n');

  it('is a front page: at most 250 lines', () => {
    expect(lines.length).toBeLessThanOrEqual(250);
  });

  it('gives the two commands near the top', () => {
    const top = lines.slice(0, 40).join('\n');
    expect(top).toMatch(/^npm install && npm start\b/m);
    expect(top).toMatch(/^npm test\b/m);
  });
});

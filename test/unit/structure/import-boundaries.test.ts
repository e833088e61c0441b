/**
 * The tree's dependency rules, read off the sources (docs/code-structure.md):
 * - `lambdas/shared/` imports nothing from a group folder (type imports included): a group's code
 *   may use shared code, never the reverse;
 * - nothing imports the composition (`lambdas/service/`) but the composition itself: a function's
 *   bundle starts from its handler.ts and must not reach every group through it;
 * - no import cycle among the modules of `lambdas/` (runtime imports: `import type` erases).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '..', '..', '..');

interface Edge {
  readonly from: string;
  readonly to: string;
  /** `import type` / `export type`: erased at build time. */
  readonly typeOnly: boolean;
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sourcesUnder(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The relative imports of a module's text, resolved to repository paths (`.ts`, or `/index.ts`). */
export function importsOf(file: string, text: string, exists: (path: string) => boolean): Edge[] {
  const edges: Edge[] = [];
  const pattern = /(?:^|\n)\s*(import|export)\s+(type\s+)?[^'";]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;
  for (const match of text.matchAll(pattern)) {
    const specifier = match[3] ?? match[4];
    const base = join(dirname(file), specifier);
    const target = [`${base}.ts`, join(base, 'index.ts'), base].find(exists);
    if (target) edges.push({ from: file, to: target, typeOnly: match[2] !== undefined });
  }
  return edges;
}

/** Imports of the composition from outside it. */
export function intoComposition(edges: readonly Edge[]): string[] {
  return edges
    .filter((edge) => edge.to.startsWith('lambdas/service/') && !edge.from.startsWith('lambdas/service/'))
    .map((edge) => `${edge.from} -> ${edge.to}`);
}

/** Shared → group edges: an import from lambdas/shared/ of a module outside it (under lambdas/). */
export function sharedToGroup(edges: readonly Edge[]): string[] {
  return edges
    .filter((edge) => edge.from.startsWith('lambdas/shared/') && edge.to.startsWith('lambdas/') && !edge.to.startsWith('lambdas/shared/'))
    .map((edge) => `${edge.from} -> ${edge.to}`);
}

/** Import cycles among runtime edges (Tarjan's strongly connected components of more than one module). */
export function cycles(edges: readonly Edge[]): string[][] {
  const graph = new Map<string, string[]>();
  for (const edge of edges.filter((e) => !e.typeOnly)) graph.set(edge.from, [...(graph.get(edge.from) ?? []), edge.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const files = sourcesUnder('lambdas');
const exists = (path: string) => {
  try {
    return statSync(join(ROOT, path)).isFile();
  } catch {
    return false;
  }
};
const edges = files.flatMap((file) => importsOf(file, readFileSync(join(ROOT, file), 'utf8'), exists));

describe('import boundaries', () => {
  it('lambdas/shared imports nothing from a group folder', () => {
    expect(sharedToGroup(edges)).toEqual([]);
  });

  it('nothing in lambdas/ imports the composition (lambdas/service/) but the composition itself', () => {
    expect(intoComposition(edges)).toEqual([]);
    // The check itself: a group's module importing the assembled contracts is found.
    const probe = importsOf('lambdas/records/probe.ts', "import { ROUTE_CONTRACTS } from '../service/contracts';\n", exists);
    expect(intoComposition(probe)).toEqual(['lambdas/records/probe.ts -> lambdas/service/contracts.ts']);
  });

  it('finds a shared → group import added to a shared module (the check itself, on a module written for it)', () => {
    const probe = "import { INVITATION_ID_PATTERN } from '../../invitations/invitation-model';\nimport type { Platform } from '../platform';\n";
    const added = importsOf('lambdas/shared/http/probe.ts', probe, exists);
    expect(sharedToGroup(added)).toEqual(['lambdas/shared/http/probe.ts -> lambdas/invitations/invitation-model.ts']);
    expect(relative(ROOT, join(ROOT, added[1].to))).toBe('lambdas/shared/platform.ts');
  });

  it('has no import cycle among the runtime imports of lambdas/', () => {
    expect(cycles(edges)).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself)', () => {
    const a = { from: 'a.ts', to: 'b.ts', typeOnly: false };
    const b = { from: 'b.ts', to: 'a.ts', typeOnly: false };
    expect(cycles([a, b])).toEqual([['a.ts', 'b.ts']]);
    expect(cycles([a, { ...b, typeOnly: true }])).toEqual([]);
  });
});

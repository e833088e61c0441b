/**
 * A generated section of a hand-written page: everything from its start marker to its end marker, both included,
 * replaced by the section rendered again (which carries the markers). The docs renderers (limits-doc.ts,
 * events-doc.ts, route-docs.ts) all write through it.
 */
export function replaceMarkedSection(text: string, start: string, end: string, section: string, where: string): string {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${where} has no section between ${start} and ${end}`);
  return text.slice(0, from) + section + text.slice(to + end.length);
}

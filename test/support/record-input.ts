/** A valid record for the back office's `records.put`, unique per call: its uuid ends with `tag` and a serial. */
let serial = 0;
export function recordInput(tag: string, overrides: Record<string, unknown> = {}) {
  serial += 1;
  return {
    uuid: `USS-${String(60000000 + serial)}-${tag}${String(serial).padStart(12 - tag.length, '0')}`,
    player_name: 'Steve',
    game_category: 'FPS',
    game: 'Valorant',
    checked_at: '2026-10-01T10:00:00Z',
    result: 'warning',
    checker_name: 'Alex Checker',
    ...overrides,
  };
}

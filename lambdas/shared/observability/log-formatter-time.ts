/**
 * The time a log line was asked, when it is written later (a line asked before Powertools loaded, logger.ts): the
 * formatter (log-formatter.ts) writes it in place of the time Powertools gives the line. Written synchronously around
 * the one Powertools call that formats the line, so no other line can see it.
 */
let askedAt: Date | undefined;

export function atTime(at: Date | undefined, write: () => void): void {
  if (at === undefined) return write();
  askedAt = at;
  try {
    write();
  } finally {
    askedAt = undefined;
  }
}

/** The time of the line being formatted, if it was asked earlier than written. */
export const lineAskedAt = (): Date | undefined => askedAt;

/** The values a request's Cookie headers carry under one name, in order (at most `max`): the player site's and web settings' cookies. */
export function cookieValues(cookieHeaders: readonly string[] | undefined, name: string, max = 4): string[] {
  const values: string[] = [];
  for (const header of cookieHeaders ?? []) {
    for (const pair of header.split(';')) {
      const at = pair.indexOf('=');
      if (at > 0 && pair.slice(0, at).trim() === name) values.push(pair.slice(at + 1).trim());
    }
  }
  return values.slice(0, max);
}

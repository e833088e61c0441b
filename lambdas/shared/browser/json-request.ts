/// <reference lib="dom" />
/**
 * Browser code: one JSON request of a page to its own origin (the session or player cookie sent,
 * nothing cached), answered as what arrived — the status, the parsed body (null when it is not
 * JSON) and `Retry-After` — or status 0 when the service could not be reached at all. Each page
 * reads its API's own shapes from it (settings-api.ts, player-api.ts).
 */

export type JsonAnswer =
  | { readonly reached: false; readonly status: 0 }
  | { readonly reached: true; readonly status: number; readonly ok: boolean; readonly body: unknown; readonly retryAfter: string | null };

export async function requestJson(url: string, init: RequestInit): Promise<JsonAnswer> {
  let response: Response;
  try {
    response = await fetch(url, { credentials: 'same-origin', cache: 'no-store', ...init });
  } catch {
    return { reached: false, status: 0 };
  }
  const body: unknown = await response.json().catch(() => null);
  return { reached: true, status: response.status, ok: response.ok, body, retryAfter: response.headers.get('Retry-After') };
}

/** The kinds of request scenarios/http-path.ts interleaves, in its order, and its name: the report reads its rows by them. */
export const HTTP_PATH_SCENARIO = 'http-path';
export const HTTP_PATH_KINDS = ['GET /me through the front', 'GET /me in process', 'admission in process', 'GET /health through the front'] as const;
export type HttpPathKind = (typeof HTTP_PATH_KINDS)[number];

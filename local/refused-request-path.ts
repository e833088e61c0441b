/**
 * Which path a request addressed when Node's HTTP parser refuses it (a lower-case or unknown method, a NUL or control
 * character in the target or a header name, a header block over Node's limit, bytes after a request that are no
 * request at all), so that the front answers it in the shape of that path's surface (web settings' on a settings
 * path). Node hands the refusal only the chunk it was parsing (`rawPacket`), which is not always where the request
 * began: a long request line or header block arrives in several chunks, and the body of a GET sent without a length is
 * parsed as a request of its own. So the front remembers, per connection, the bytes since its last request began and
 * the path that request addressed, and reads the path from, in order:
 * 1. the request line those bytes begin with: any method token (lower-case and unknown ones too), then the target,
 *    even cut short (its beginning says the surface);
 * 2. the request line the chunk Node was parsing begins with;
 * 3. the path the connection's last request addressed (what follows a request on its connection, e.g. a GET's body
 *    sent without a length, belongs to that request's client);
 * and has none when no request line can be read and the connection addressed nothing yet (the front then answers in
 * the body both shapes read: local/http-front.ts).
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** Bytes kept of a request's beginning: the method and the target's start, which say the surface, and never more. */
export const REQUEST_HEAD_BYTES = 2048;

/**
 * A request line's method (whatever its bytes: lower-case, unknown, not even a token) and its target in origin form
 * (`/…`) or absolute form (`http://…`), which may be cut short. Bytes that are no request line (a JSON body,
 * `hello world`) do not match.
 */
const REQUEST_LINE = /^[^ \r\n]+ +(\/[^ \r\n]*|[A-Za-z][A-Za-z0-9+.-]*:\/\/[^ \r\n]*)/;

interface ConnectionState {
  /** The bytes received since the connection's last request was parsed (at most REQUEST_HEAD_BYTES). */
  head: Buffer | undefined;
  /** The stage-relative path of the last request parsed on the connection. */
  lastPath: string | undefined;
}

export class RefusedRequestPaths {
  private readonly connections = new WeakMap<Duplex, ConnectionState>();

  /** `pathOfTarget`: the stage-relative path of a raw request target, as the front routes it. */
  constructor(private readonly pathOfTarget: (target: string) => string) {}

  /** Start remembering each connection of `server` (before Node's parser reads a byte of it). */
  watch(server: Server): void {
    server.on('connection', (socket: Socket) => {
      const state: ConnectionState = { head: undefined, lastPath: undefined };
      this.connections.set(socket, state);
      // Prepended, so the bytes are kept before the parser (Node's own listener) reads them and may refuse them.
      socket.prependListener('data', (chunk: Buffer) => {
        if (state.head === undefined) state.head = Buffer.from(chunk.subarray(0, REQUEST_HEAD_BYTES));
        else if (state.head.length < REQUEST_HEAD_BYTES) state.head = Buffer.concat([state.head, chunk]).subarray(0, REQUEST_HEAD_BYTES);
      });
    });
  }

  /** A request was parsed on `socket`: what comes next begins another, and belongs to the client of `path`. */
  addressed(socket: Duplex, path: string): void {
    const state = this.connections.get(socket);
    if (!state) return;
    state.head = undefined;
    state.lastPath = path;
  }

  /** The stage-relative path the request refused on `socket` addressed, or undefined when none can be read. */
  pathOf(socket: Duplex, rawPacket: Buffer | undefined): string | undefined {
    const state = this.connections.get(socket);
    const target = requestTargetOf(state?.head) ?? requestTargetOf(rawPacket);
    return target !== undefined ? this.pathOfTarget(target) : state?.lastPath;
  }
}

/** The target of the request line `bytes` begin with, or undefined. */
export function requestTargetOf(bytes: Buffer | undefined): string | undefined {
  if (!bytes) return undefined;
  return REQUEST_LINE.exec(bytes.subarray(0, REQUEST_HEAD_BYTES).toString('latin1'))?.[1];
}

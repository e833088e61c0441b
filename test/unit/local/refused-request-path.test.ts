/**
 * The path a request Node's parser refused addressed (local/refused-request-path.ts): read from the request line its
 * connection's bytes began with, whatever the method, even cut short; else from the chunk Node was parsing; else the
 * connection's last request's; none when no request line can be read and the connection addressed nothing.
 */
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RefusedRequestPaths, requestTargetOf } from '../../../local/refused-request-path';

const bytes = (text: string) => Buffer.from(text, 'latin1');

describe('the target of a request line', () => {
  it.each([
    ['a lower-case method', 'get /v1/settings/api/keys HTTP/1.1\r\n', '/v1/settings/api/keys'],
    ['an unknown method', 'FETCH /v1/settings HTTP/1.1\r\n', '/v1/settings'],
    ['a method that is no token (raw UTF-8)', 'G\u00c3\u0089T /v1/settings/api/session HTTP/1.1\r\n', '/v1/settings/api/session'],
    ['a NUL in a query name', 'GET /v1/settings/api/keys?a\u0000b=1 HTTP/1.1\r\n', '/v1/settings/api/keys?a\u0000b=1'],
    ['a line cut short', `GET /v1/settings/api/keys?q=${'a'.repeat(100)}`, `/v1/settings/api/keys?q=${'a'.repeat(100)}`],
    ['the absolute form', 'get http://host/v1/settings HTTP/1.1\r\n', 'http://host/v1/settings'],
  ])('%s', (_what, line, target) => {
    expect(requestTargetOf(bytes(line))).toBe(target);
  });

  it.each([
    ['a JSON body', '{"a":1}'],
    ['words', 'hello world'],
    ['a header line', 'X-Long: aaaa\r\n'],
    ['nothing', ''],
  ])('none in %s', (_what, text) => {
    expect(requestTargetOf(bytes(text))).toBeUndefined();
  });
});

describe('the path a connection’s refused request addressed', () => {
  const stagePath = (target: string) => target.replace(/^\/v1/, '').split('?')[0];
  const connection = () => {
    const paths = new RefusedRequestPaths(stagePath);
    const server = new EventEmitter() as unknown as Server;
    paths.watch(server);
    const socket = new EventEmitter() as unknown as Socket;
    server.emit('connection', socket);
    return { paths, socket, receive: (text: string) => socket.emit('data', bytes(text)) };
  };

  it('reads the line the request began with when the refused chunk holds none (a header block grown over the limit)', () => {
    const { paths, socket, receive } = connection();
    receive('GET /v1/settings/api/keys HTTP/1.1\r\nX-Long: aaaa');
    receive('aaaa');

    expect(paths.pathOf(socket, bytes('aaaa'))).toBe('/settings/api/keys');
  });

  it('gives what follows a parsed request to that request’s path (a GET’s body sent without a length)', () => {
    const { paths, socket, receive } = connection();
    receive('GET /v1/settings/api/keys HTTP/1.1\r\n\r\n');
    paths.addressed(socket, '/settings/api/keys');
    receive('{"a":1}');

    expect(paths.pathOf(socket, bytes('{"a":1}'))).toBe('/settings/api/keys');
  });

  it('reads the next request’s own line once the last one was parsed', () => {
    const { paths, socket, receive } = connection();
    receive('GET /v1/health HTTP/1.1\r\n\r\n');
    paths.addressed(socket, '/health');
    receive('get /v1/settings HTTP/1.1\r\n\r\n');

    expect(paths.pathOf(socket, bytes('get /v1/settings HTTP/1.1\r\n\r\n'))).toBe('/settings');
  });

  it('has none for bytes that are no request, first on their connection', () => {
    const { paths, socket, receive } = connection();
    receive('{"a":1}');

    expect(paths.pathOf(socket, bytes('{"a":1}'))).toBeUndefined();
  });
});

/**
 * Several writes on one raw connection, for what a single write cannot show: bytes sent after a request has been
 * answered on its keep-alive connection (a GET's body sent without a length), and a request whose head arrives in two
 * pieces (a header block that grows over the server's limit in its second piece). Each write goes after the answer to
 * the previous one has arrived (`after: 'answer'`), or after a short pause with Nagle's algorithm off (`after: 'pause'`),
 * so that the server reads it as a chunk of its own; the answers are read until the server closes the connection.
 */
import { connect } from 'node:net';
import type { WireAnswer } from './raw-http';

export interface RawWrite {
  readonly bytes: string;
  /** When to write it: once the previous write's answer has arrived, or after a pause (default: at once). */
  readonly after?: 'answer' | 'pause';
}

/** A pause between two writes so the server reads them apart: pacing only, nothing is asserted on time. */
const PAUSE_MS = 100;

export function rawConnection(baseUrl: string, writes: readonly RawWrite[]): Promise<WireAnswer[]> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    let answered = 0;
    const waiting: (() => void)[] = [];
    const socket = connect(Number(port), hostname);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const complete = parseAnswers(received.toString('latin1')).complete;
      while (answered < complete) {
        answered += 1;
        waiting.shift()?.();
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(parseAnswers(received.toString('latin1')).answers));
    socket.on('connect', async () => {
      for (const [i, write] of writes.entries()) {
        if (write.after === 'answer') await new Promise<void>((next) => (answered >= i ? next() : waiting.push(next)));
        if (write.after === 'pause') await new Promise((next) => setTimeout(next, PAUSE_MS));
        if (!socket.writable) break;
        socket.write(Buffer.from(write.bytes, 'latin1'));
      }
    });
  });
}

/** The answers in `text` (HTTP/1.1, each with its Content-Length), and how many are complete. */
function parseAnswers(text: string): { answers: WireAnswer[]; complete: number } {
  const answers: WireAnswer[] = [];
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = Object.create(null);
    for (const line of lines) headers[line.slice(0, line.indexOf(':')).trim().toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
    const length = Number(headers['content-length'] ?? 0);
    if (rest.length < end + 4 + length) break;
    const body = Buffer.from(rest.slice(end + 4, end + 4 + length), 'latin1').toString('utf8');
    let json: WireAnswer['json'];
    try {
      json = JSON.parse(body) as WireAnswer['json'];
    } catch {
      json = undefined;
    }
    answers.push({ status: Number(statusLine.split(' ')[1]), headers, text: body, json });
    rest = rest.slice(end + 4 + length);
  }
  return { answers, complete: answers.length };
}

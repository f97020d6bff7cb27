/**
 * Requests that Node's HTTP parser refuses never reach hapi: a raw NUL or other control byte in
 * the request line or a header, or a request line and headers over 16 KiB (a long query string).
 * hapi answers them with a bare `400 Bad Request`; here they get the spec's error body as well,
 * when no response is under way on the socket (Node's own test: `_httpMessage`, set while a
 * response of a kept-alive socket is being written). Anything else (a reset, a parse error while
 * a response is in flight) is left to hapi's own handler.
 */
import type { Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from './plugins/error-body.js';

function messageOf(code: string | undefined): string {
  if (code === 'HPE_HEADER_OVERFLOW') return 'The request line and headers are too large (at most 16 KiB; send long arguments in a JSON body)';
  return 'The request is not valid HTTP (a control character such as NUL in the request line or a header?)';
}

export function answerParserRefusals(listener: HttpServer): void {
  const hapiHandlers = listener.listeners('clientError') as ((err: Error, socket: Duplex) => void)[];
  listener.removeAllListeners('clientError');
  listener.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex & { _httpMessage?: unknown }) => {
    const code = err.code;
    if (!socket.writable || socket._httpMessage || !code?.startsWith('HPE_')) {
      for (const handler of hapiHandlers) handler.call(listener, err, socket);
      return;
    }
    const body = JSON.stringify(errorBody('ValidationError', [messageOf(code)]));
    socket.end(
      `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}

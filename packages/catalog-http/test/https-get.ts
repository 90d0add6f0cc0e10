import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export interface GetOptions {
  readonly ca?: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  /** Source address of the connection (another loopback address is another client). */
  readonly localAddress?: string;
}

/** Opens a request and resolves with the response before its body is read (the caller reads or destroys it). */
export function open(url: string, options: GetOptions = {}): Promise<IncomingMessage> {
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const call = request(
      target,
      { method: options.method ?? 'GET', headers: options.headers ?? {}, agent: false, ...(options.ca === undefined ? {} : { ca: options.ca }), ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }) },
      resolve,
    );
    call.on('error', reject);
    call.end();
  });
}

/** A whole request: status, headers and the raw (still encoded) body. */
export async function get(url: string, options: GetOptions = {}): Promise<Reply> {
  const response = await open(url, options);
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return { status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) };
}

/** The JSON Lines of a body: one object a line, each line ending in a newline. */
export function jsonLines(body: Buffer): Record<string, unknown>[] {
  const text = body.toString('utf8');
  if (text === '') return [];
  if (!text.endsWith('\n')) throw new Error('the last line does not end with a newline');
  return text.slice(0, -1).split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
}

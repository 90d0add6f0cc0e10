import { request as httpRequest } from 'node:http';

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  json<T = any>(): T;
}

/** One HTTP request to the console with full control of Host, Origin and Cookie (fetch would set Host itself). */
export function consoleRequest(
  port: number,
  path: string,
  options: { readonly method?: string; readonly headers?: Record<string, string>; readonly body?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { Host: `127.0.0.1:${port}`, ...options.headers } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json: () => JSON.parse(text) }));
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** The headers of a signed-in page of this console: its cookie, and its own origin on writes. */
export function signedIn(port: number, token: string, write = false): Record<string, string> {
  return { Cookie: `olm_console_token=${token}`, ...(write ? { Origin: `http://127.0.0.1:${port}`, 'Content-Type': 'application/json' } : {}) };
}

/** Calls of the console's JSON API: same origin, the token cookie goes along by itself. */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(`${status} ${reason}: ${message}`);
  }
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = { message: text };
  }
  if (!response.ok) throw new ApiError(response.status, parsed.reason ?? response.statusText, parsed.message ?? text);
  return parsed as T;
}

export const getJson = <T = any>(path: string, query: Record<string, string | undefined> = {}): Promise<T> => {
  const search = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return call<T>('GET', search.size > 0 ? `${path}?${search}` : path);
};

export const postJson = <T = any>(path: string, body: unknown): Promise<T> => call<T>('POST', path, body);

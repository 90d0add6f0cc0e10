import { badRequest } from './errors.js';

/** The `continue` token of a paged list: where the next page starts, at which revision (opaque to clients). */
export function encodeContinue(revision: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: revision, start })).toString('base64url');
}

export function decodeContinue(token: string): { revision: number; start: string } {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { rv?: unknown; start?: unknown };
    if (typeof parsed.rv === 'number' && typeof parsed.start === 'string') return { revision: parsed.rv, start: parsed.start };
  } catch {
    // fall through
  }
  throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}

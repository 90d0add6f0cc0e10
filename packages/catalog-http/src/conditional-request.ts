import type { IncomingHttpHeaders } from 'node:http';

/** What a conditional request asks for, as Go's `http.ServeContent` decides it. */
export type Precondition = 'proceed' | 'not-modified' | 'failed';

function listsTag(header: string, etags: readonly string[]): boolean {
  if (header.trim() === '*') return true;
  // Weak comparison (RFC 9110 §8.8.3.2): `W/` is ignored on either side.
  const wanted = new Set(etags.map((tag) => tag.replace(/^W\//, '')));
  return header.split(',').some((tag) => wanted.has(tag.trim().replace(/^W\//, '')));
}

function parseHttpDate(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : time;
}

/**
 * Checks If-Match, If-Unmodified-Since, If-None-Match and If-Modified-Since in that order against
 * the representation's entity tags and modification time (HTTP dates have second resolution; an
 * unparsable date is ignored, as Go does). If-Modified-Since only counts without If-None-Match.
 */
export function checkPreconditions(headers: IncomingHttpHeaders, etags: readonly string[], lastModified: Date): Precondition {
  const modified = Math.floor(lastModified.getTime() / 1000) * 1000;
  const ifMatch = headers['if-match'];
  if (ifMatch !== undefined && !listsTag(ifMatch, etags.filter((tag) => !tag.startsWith('W/')))) return 'failed';
  const ifUnmodifiedSince = parseHttpDate(headers['if-unmodified-since']);
  if (ifMatch === undefined && ifUnmodifiedSince !== undefined && modified > ifUnmodifiedSince) return 'failed';
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) return listsTag(ifNoneMatch, etags) ? 'not-modified' : 'proceed';
  const ifModifiedSince = parseHttpDate(headers['if-modified-since']);
  if (ifModifiedSince !== undefined && modified <= ifModifiedSince) return 'not-modified';
  return 'proceed';
}

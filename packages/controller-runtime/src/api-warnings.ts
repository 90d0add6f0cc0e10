/**
 * One API warning: a value of the HTTP `Warning` response header (RFC 7234 section 5.5), which the
 * Kubernetes API server sends as `299 - "text"` for deprecated APIs, unknown fields, and the like.
 */
export interface ApiWarning {
  /** The warn-code; Kubernetes always sends 299 ("miscellaneous persistent warning"). */
  readonly code: number;
  /** The warn-agent; `-` when the server does not name itself. */
  readonly agent: string;
  /** The warning text, unquoted. */
  readonly text: string;
}

/** Receives the API warnings of requests. It must not throw; if it does, the error is ignored. */
export type WarningHandler = (warning: ApiWarning) => void;

// warn-code SP warn-agent SP quoted warn-text [SP quoted warn-date], then a comma or the end.
const warningValue = /[\s,]*(\d{3}) ([^\s",]+) "((?:[^"\\]|\\.)*)"(?: "[^"]*")?\s*(?:,|$)/y;

/**
 * The warnings in one `Warning` header. Several header lines arrive joined by commas (as Node's
 * fetch does), and commas may also appear inside the quoted text, so the values are read one by
 * one rather than split. A malformed value is skipped up to the next comma.
 */
export function parseWarningHeader(header: string): ApiWarning[] {
  const warnings: ApiWarning[] = [];
  let position = 0;
  while (position < header.length) {
    if (/^[\s,]*$/.test(header.slice(position))) break;
    warningValue.lastIndex = position;
    const match = warningValue.exec(header);
    if (!match) {
      const comma = header.indexOf(',', position + 1);
      if (comma < 0) break;
      position = comma;
      continue;
    }
    warnings.push({ code: Number(match[1]), agent: match[2]!, text: match[3]!.replace(/\\(.)/g, '$1') });
    position = warningValue.lastIndex;
  }
  return warnings;
}

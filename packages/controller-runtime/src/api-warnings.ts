import type { ApiWarning } from '@olm/core';

export type { ApiWarning, WarningHandler } from '@olm/core';

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

import { crc32 } from 'node:zlib';

/**
 * One line of the data directory's log: `{"n":<sequence>,"c":"<crc32>","r":<record>}`. The sequence
 * is the line's number in the file, so a deleted or blanked line shows as a gap; the checksum covers
 * the record's exact text, so a changed byte shows too. Lines stay JSON for tools such as jq.
 */
const framing = /^\{"n":(\d{1,15}),"c":"([0-9a-f]{8})","r":/;

export function encodeRecordLine(sequence: number, recordJson: string): string {
  return `{"n":${sequence},"c":"${checksum(recordJson)}","r":${recordJson}}`;
}

function checksum(text: string): string {
  return crc32(text).toString(16).padStart(8, '0');
}

/** `gap`: a whole, intact record out of sequence, so never a torn append, even as the last line. */
export type DecodedLine = { readonly record: unknown } | { readonly problem: string; readonly gap?: boolean };

/** The record of a framed line numbered `lineNumber`, or why it is not one. */
export function decodeRecordLine(line: string, lineNumber: number): DecodedLine {
  const match = framing.exec(line);
  if (!match || !line.endsWith('}')) return { problem: 'not a complete record ({"n":<sequence>,"c":"<checksum>","r":<record>})' };
  const sequence = Number(match[1]);
  const recordJson = line.slice(match[0].length, -1);
  if (checksum(recordJson) !== match[2]) return { problem: `checksum mismatch (the record was changed after it was written)` };
  if (sequence !== lineNumber) {
    const problem = sequence > lineNumber ? `record ${sequence} where record ${lineNumber} belongs: ${sequence - lineNumber} record(s) before it are missing` : `record ${sequence} where record ${lineNumber} belongs (out of order)`;
    return { problem, gap: true };
  }
  try {
    return { record: JSON.parse(recordJson) as unknown };
  } catch (error) {
    return { problem: `not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** Whether a log's first line is in the format written before records were framed (plain JSON records). */
export function isLegacyLine(line: string): boolean {
  return line.startsWith('{"t":');
}

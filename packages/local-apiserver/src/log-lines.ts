import { createReadStream } from 'node:fs';

export interface LogLine {
  /** 1-based. */
  readonly number: number;
  readonly text: string;
  /** False for a last line the file ends in without a newline (a torn append). */
  readonly terminated: boolean;
}

/**
 * The lines of a file, read as a stream: the file may be larger than any string, only one line is
 * held at a time. A line longer than `maxLineBytes` is an error naming it (a string that long could
 * not be parsed anyway: V8's limit is about 512 MiB).
 */
export async function* readLogLines(path: string, maxLineBytes: number): AsyncGenerator<LogLine> {
  let pieces: Buffer[] = [];
  let pending = 0;
  let number = 0;
  const tooLong = (): Error => new Error(`${path}:${number + 1}: a record longer than ${maxLineBytes} bytes, more than the log reader holds at once`);
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let end = chunk.indexOf(10); end >= 0; end = chunk.indexOf(10, start)) {
      pending += end - start;
      if (pending > maxLineBytes) throw tooLong();
      pieces.push(chunk.subarray(start, end));
      number++;
      yield { number, text: Buffer.concat(pieces).toString('utf8'), terminated: true };
      pieces = [];
      pending = 0;
      start = end + 1;
    }
    if (start < chunk.length) {
      pending += chunk.length - start;
      if (pending > maxLineBytes) throw tooLong();
      pieces.push(chunk.subarray(start));
    }
  }
  if (pending > 0) yield { number: number + 1, text: Buffer.concat(pieces).toString('utf8'), terminated: false };
}

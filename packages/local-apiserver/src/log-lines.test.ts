import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { constants } from 'node:buffer';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readLogLines } from './log-lines.js';

describe('readLogLines', () => {
  const directories: string[] = [];
  const temporaryFile = () => {
    const directory = mkdtempSync(join(tmpdir(), 'olm-log-lines-'));
    directories.push(directory);
    return join(directory, 'store.jsonl');
  };
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  it('reads a file larger than the longest string one line at a time', async () => {
    const path = temporaryFile();
    const lineBytes = 1024 * 1024;
    const count = Math.ceil(constants.MAX_STRING_LENGTH / lineBytes) + 4;
    const fd = openSync(path, 'w');
    try {
      // Sparse: only the newlines are written, the rest of each line reads as NUL bytes.
      ftruncateSync(fd, count * lineBytes);
      for (let index = 1; index <= count; index++) writeSync(fd, '\n', index * lineBytes - 1);
      writeSync(fd, 'torn', count * lineBytes);
    } finally {
      closeSync(fd);
    }
    expect(statSync(path).size).toBeGreaterThan(constants.MAX_STRING_LENGTH);
    let lines = 0;
    let last: { number: number; text: string; terminated: boolean } | undefined;
    for await (const read of readLogLines(path, 2 * lineBytes)) {
      lines++;
      if (read.terminated && read.text.length !== lineBytes - 1) throw new Error(`line ${read.number} has ${read.text.length} characters`);
      last = read;
    }
    expect(lines).toBe(count + 1);
    expect(last).toEqual({ number: count + 1, text: 'torn', terminated: false });
  }, 60_000);

  it('refuses a line longer than the limit, naming it and the limit', async () => {
    const path = temporaryFile();
    writeFileSync(path, `short\n${'y'.repeat(5000)}\nnext\n`);
    const read = async () => {
      for await (const _ of readLogLines(path, 4096));
    };
    await expect(read()).rejects.toThrow(`${path}:2: a record longer than 4096 bytes`);
  });
});

import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { askOnTerminal } from './uninstall.js';

const terminal = () => Object.assign(new PassThrough(), { isTTY: true });

describe('the uninstall confirmation', () => {
  it('asks [y/N] and goes ahead on y or yes only', async () => {
    for (const [answer, expected] of [['y', true], ['YES', true], ['', false], ['n', false], ['sure', false]] as const) {
      const input = terminal();
      const output = new PassThrough();
      let asked = '';
      output.on('data', (chunk: Buffer) => (asked += chunk.toString()));
      const answered = askOnTerminal('Delete these objects?', input, output);
      input.write(`${answer}\n`);
      expect({ answer, confirmed: await answered }).toEqual({ answer, confirmed: expected });
      expect(asked).toContain('Delete these objects? [y/N] ');
    }
  });

  it('refuses to ask without a terminal', async () => {
    await expect(askOnTerminal('Delete these objects?', new PassThrough(), new PassThrough())).rejects.toThrow(
      'refusing to delete without confirmation: stdin is not a terminal; pass --yes to delete what is listed above',
    );
  });
});

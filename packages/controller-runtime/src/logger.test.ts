import type { LogFields, Logger } from '@olm/core';
import { describe, expect, it } from 'vitest';
import { deferredLogger } from './logger.js';

function recordingLogger(lines: string[], bound: LogFields = {}): Logger {
  const write = (level: string) => (message: string, fields?: LogFields) => lines.push(`${level} ${message} ${JSON.stringify({ ...bound, ...fields })}`);
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error'), child: (fields) => recordingLogger(lines, { ...bound, ...fields }) };
}

describe('deferredLogger', () => {
  it('drops what is logged before the logger is known, then writes to it, children included', () => {
    const lines: string[] = [];
    let known: Logger | undefined;
    const logger = deferredLogger(() => known);
    const child = logger.child({ component: 'catalog' });
    logger.info('too early');
    child.warn('also too early');
    known = recordingLogger(lines);
    logger.info('started', { n: 1 });
    child.warn('reload failed', { catalogSource: 'olm/x' });
    child.child({ step: 2 }).error('nested');
    expect(lines).toEqual([
      'info started {"n":1}',
      'warn reload failed {"component":"catalog","catalogSource":"olm/x"}',
      'error nested {"component":"catalog","step":2}',
    ]);
  });
});

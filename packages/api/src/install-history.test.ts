import { describe, expect, it } from 'vitest';
import { ProjectAnnotations } from './annotations.js';
import { appendInstallHistory, maxInstallHistoryEntries, readInstallHistory } from './install-history.js';

describe('install history', () => {
  const at = (csv: string) => ({ csv, installedAt: '2026-11-29T09:00:00Z' });

  it('reads the entries of the annotation and skips what is not an entry', () => {
    const value = JSON.stringify([at('a.v1'), { csv: 3 }, 'x', { ...at('a.v2'), version: '2.0.0', installPlan: 'install-abc' }]);
    expect(readInstallHistory({ [ProjectAnnotations.installHistory]: value })).toEqual([at('a.v1'), { ...at('a.v2'), version: '2.0.0', installPlan: 'install-abc' }]);
  });

  it('reads an edited, unreadable annotation as no history', () => {
    expect(readInstallHistory({ [ProjectAnnotations.installHistory]: '[{"csv":' })).toEqual([]);
    expect(readInstallHistory({ [ProjectAnnotations.installHistory]: '{"csv":"a"}' })).toEqual([]);
    expect(readInstallHistory(undefined)).toEqual([]);
  });

  it('appends a new revision once, and a revision installed again (a rollback) as a new entry', () => {
    const one = appendInstallHistory([], at('a.v1'));
    expect(appendInstallHistory(one, at('a.v1'))).toEqual(one);
    const back = appendInstallHistory(appendInstallHistory(one, at('a.v2')), at('a.v1'));
    expect(back.map((entry) => entry.csv)).toEqual(['a.v1', 'a.v2', 'a.v1']);
  });

  it('keeps only the newest entries', () => {
    let history = [] as ReturnType<typeof appendInstallHistory>;
    for (let index = 0; index < maxInstallHistoryEntries + 5; index++) history = appendInstallHistory(history, at(`a.v${index}`));
    expect(history).toHaveLength(maxInstallHistoryEntries);
    expect(history[0]!.csv).toBe('a.v5');
  });
});

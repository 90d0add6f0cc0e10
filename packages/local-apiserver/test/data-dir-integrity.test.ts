import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { call, startTestServer } from './helpers.js';

const cms = '/api/v1/namespaces/default/configmaps';

describe('data directory integrity', () => {
  const directories: string[] = [];
  const servers: ApiServer[] = [];
  const warnings: string[] = [];

  const start = async (dataDir: string) => {
    const server = await startTestServer({ dataDir, warn: (message) => warnings.push(message) });
    servers.push(server);
    return server;
  };
  const temporary = () => {
    const directory = mkdtempSync(join(tmpdir(), 'olm-apiserver-integrity-'));
    directories.push(directory);
    return directory;
  };
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
    warnings.length = 0;
  });

  /** A stopped data dir holding ConfigMaps a, b and c, and its log's lines (the last one empty: the final newline). */
  const dataDirWithThreeConfigMaps = async () => {
    const dataDir = temporary();
    const server = await start(dataDir);
    for (const name of ['a', 'b', 'c']) expect((await call(server, 'POST', cms, { metadata: { name }, data: { key: name } })).status).toBe(201);
    await server.stop();
    const path = join(dataDir, 'store.jsonl');
    return { dataDir, path, lines: readFileSync(path, 'utf8').split('\n') };
  };
  const lineOf = (lines: string[], name: string) => lines.findIndex((line) => line.includes(`"name":"${name}"`));

  const refusal = async (dataDir: string) =>
    start(dataDir).then(
      () => undefined,
      (error: unknown) => error as { code?: string; message: string },
    );

  it('refuses a blanked line in the middle of the log, naming it, and rewrites nothing', async () => {
    const { dataDir, path, lines } = await dataDirWithThreeConfigMaps();
    const index = lineOf(lines, 'b');
    lines[index] = '';
    writeFileSync(path, lines.join('\n'));
    const before = readFileSync(path);
    const failure = await refusal(dataDir);
    expect(failure?.code).toBe('OLM_APISERVER_DATA_DIR_CORRUPT');
    expect(failure?.message).toContain(`${path}:${index + 1}: the data directory's log is corrupt: a blank line`);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('refuses a deleted line in the middle of the log: the next record\'s sequence shows the gap', async () => {
    const { dataDir, path, lines } = await dataDirWithThreeConfigMaps();
    const index = lineOf(lines, 'b');
    lines.splice(index, 1);
    writeFileSync(path, lines.join('\n'));
    const before = readFileSync(path);
    const failure = await refusal(dataDir);
    expect(failure?.message).toContain(`${path}:${index + 1}: the data directory's log is corrupt: record ${index + 2} where record ${index + 1} belongs: 1 record(s) before it are missing`);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('refuses a changed record in the middle of the log by its checksum', async () => {
    const { dataDir, path, lines } = await dataDirWithThreeConfigMaps();
    const index = lineOf(lines, 'b');
    lines[index] = lines[index]!.replace('"key":"b"', '"key":"x"');
    writeFileSync(path, lines.join('\n'));
    const before = readFileSync(path);
    const failure = await refusal(dataDir);
    expect(failure?.message).toContain(`${path}:${index + 1}: the data directory's log is corrupt: checksum mismatch`);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('drops a torn last record with a warning naming its line, and keeps the rest', async () => {
    const { dataDir, path } = await dataDirWithThreeConfigMaps();
    const server = await start(dataDir);
    expect((await call(server, 'POST', cms, { metadata: { name: 'd' }, data: { key: 'd' } })).status).toBe(201);
    await server.stop();
    const text = readFileSync(path, 'utf8');
    const lines = text.trimEnd().split('\n');
    const torn = lines.length;
    expect(lines[torn - 1]).toContain('"name":"d"');
    writeFileSync(path, text.slice(0, text.trimEnd().length - 40));
    warnings.length = 0;
    const restarted = await start(dataDir);
    expect(warnings).toEqual([expect.stringContaining(`${path}:${torn}: dropped the log's last record, torn by a crash before it was acknowledged`)]);
    expect((await call(restarted, 'GET', `${cms}/d`)).status).toBe(404);
    expect((await call(restarted, 'GET', `${cms}/c`)).status).toBe(200);
  });

  it('loads a data dir written in the earlier unframed format and rewrites it framed', async () => {
    const { dataDir, path, lines } = await dataDirWithThreeConfigMaps();
    const legacy = lines.filter((line) => line !== '').map((line) => JSON.stringify((JSON.parse(line) as { r: unknown }).r));
    writeFileSync(path, `${legacy.join('\n')}\n`);
    const server = await start(dataDir);
    expect(((await call(server, 'GET', `${cms}/b`)).body as { data: unknown }).data).toEqual({ key: 'b' });
    await server.stop();
    expect(readFileSync(path, 'utf8').split('\n')[0]).toMatch(/^\{"n":1,"c":"[0-9a-f]{8}","r":\{"t":"meta"/);
    expect(warnings).toEqual([]);
  });

  it('keeps the data dir 0700 and its files 0600', async () => {
    const dataDir = join(temporary(), 'data');
    const server = await startTestServer({ dataDir, tls: true, warn: (message) => warnings.push(message) });
    servers.push(server);
    expect((await call(server, 'POST', cms, { metadata: { name: 'a' } })).status).toBe(201);
    await server.stop();
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    for (const file of ['store.jsonl', 'kubeconfig', 'auth/admin-token']) expect([file, statSync(join(dataDir, file)).mode & 0o777]).toEqual([file, 0o600]);
    expect(warnings).toEqual([]);
  });

  it('tightens an existing data dir left readable by others, and says so', async () => {
    const { dataDir, path } = await dataDirWithThreeConfigMaps();
    chmodSync(dataDir, 0o755);
    chmodSync(path, 0o644);
    mkdirSync(join(dataDir, 'tls'), { recursive: true, mode: 0o755 });
    chmodSync(join(dataDir, 'tls'), 0o755);
    writeFileSync(join(dataDir, 'kubeconfig'), 'stale', { mode: 0o644 });
    chmodSync(join(dataDir, 'kubeconfig'), 0o644);
    // Not the server's: a data directory may hold the user's own files, which keep their mode.
    writeFileSync(join(dataDir, 'notes.txt'), 'mine');
    chmodSync(join(dataDir, 'notes.txt'), 0o644);
    warnings.length = 0;
    await start(dataDir);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, 'tls')).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'kubeconfig')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'notes.txt')).mode & 0o777).toBe(0o644);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`${dataDir} (was 0755)`);
    expect(warnings[0]).toContain(`${path} (was 0644)`);
    expect(existsSync(`${path}.tmp`)).toBe(false);
  });
});

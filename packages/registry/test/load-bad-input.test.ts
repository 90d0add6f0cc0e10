import { createWriteStream } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDeclarativeConfig, validateCatalog } from '../src/index.js';

/**
 * Bad input never crashes the loader: each case below gives a load problem that names the file
 * (and line where known), with a hint, while the rest of the catalog still loads.
 */
let root: string;
const servers: Server[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'olm-bad-'));
  await writeFile(join(root, 'good.yaml'), 'schema: olm.package\nname: good\ndefaultChannel: stable\n');
});

afterEach(async () => {
  for (const server of servers.splice(0)) server.close();
  await rm(root, { recursive: true, force: true });
});

async function problemsFor(file: string): Promise<{ message: string; line?: number; hint: string }[]> {
  const config = await loadDeclarativeConfig(root);
  expect(config.packages.map((item) => item.name)).toContain('good');
  return config.errors.filter((error) => error.file === file).map(({ message, line, hint }) => (line === undefined ? { message, hint } : { message, line, hint }));
}

describe('loading bad input', () => {
  it('invalid YAML: names the line', async () => {
    await writeFile(join(root, 'bad.yaml'), 'schema: olm.package\nname: bad\n---\nschema: olm.channel\nentries: [\n  {name: a\n');
    const [problem, ...rest] = await problemsFor('bad.yaml');
    expect(rest).toEqual([]);
    expect(problem?.message).toMatch(/^yaml: line \d+: /);
    expect(problem?.line).toBeGreaterThanOrEqual(5);
    expect(problem?.hint).toMatch(/YAML syntax/);
  });

  it('invalid JSON: names the line', async () => {
    await writeFile(join(root, 'bad.json'), '{"schema": "olm.package", "name": "x"}\n{\n  "schema": "olm.channel",\n  "name": oops\n}\n');
    expect(await problemsFor('bad.json')).toMatchObject([{ message: "invalid character 'o' looking for beginning of value", line: 4 }]);
  });

  it('a top-level array or scalar', async () => {
    await writeFile(join(root, 'array.yaml'), '- schema: olm.package\n  name: x\n');
    await writeFile(join(root, 'scalar.yaml'), 'just some text\n');
    await writeFile(join(root, 'stream.json'), '{"schema": "my.thing"} [1, 2]');
    expect(await problemsFor('array.yaml')).toMatchObject([{ message: 'json: cannot unmarshal array into Go value of type map[string]interface {}', line: 1 }]);
    expect(await problemsFor('scalar.yaml')).toMatchObject([{ message: 'json: cannot unmarshal string into Go value of type map[string]interface {}', line: 1 }]);
    expect(await problemsFor('stream.json')).toMatchObject([{ message: 'json: cannot unmarshal array into Go value of type map[string]interface {}', line: 1 }]);
  });

  it('a 50 MB single line', async () => {
    const stream = createWriteStream(join(root, 'huge.yaml'));
    const chunk = 'x'.repeat(1 << 20);
    for (let index = 0; index < 50; index += 1) stream.write(chunk);
    stream.end();
    await once(stream, 'finish');
    expect(await problemsFor('huge.yaml')).toMatchObject([{ message: 'json: cannot unmarshal string into Go value of type map[string]interface {}', line: 1 }]);
  });

  it('deeply nested values (100k nested arrays), in YAML and JSON', async () => {
    const depth = 100_000;
    await writeFile(join(root, 'deep.yaml'), `schema: my.deep\nvalue: ${'['.repeat(depth)}${']'.repeat(depth)}\n`);
    await writeFile(join(root, 'deep.json'), `{"schema": "my.deep", "value": ${'['.repeat(depth)}${']'.repeat(depth)}}`);
    expect(await problemsFor('deep.yaml')).toMatchObject([{ message: 'yaml: line 2: exceeded max depth of 1000', line: 2 }]);
    expect(await problemsFor('deep.json')).toMatchObject([{ message: 'json: exceeded max depth of 1000 nested values', line: 1 }]);
  });

  it('nested YAML aliases inside a property (billion laughs): refused at load, naming the line of the first anchor', async () => {
    const levels = 'bcdefghi'.split('').map((name, index) => `      ${name}: &${name} [${Array(9).fill(`*${'abcdefghi'[index]}`).join(', ')}]`);
    await writeFile(
      join(root, 'laughs.yaml'),
      [
        'schema: olm.bundle',
        'package: good',
        'name: good.v1.0.0',
        'image: quay.io/example/good:v1.0.0',
        'properties:',
        '  - type: olm.package',
        '    value: {packageName: good, version: 1.0.0}',
        '  - type: example.laughs',
        '    value:',
        `      a: &a [${Array(9).fill('"lol"').join(', ')}]`,
        ...levels,
        '',
      ].join('\n'),
    );
    const [problem, ...rest] = await problemsFor('laughs.yaml');
    expect(rest).toEqual([]);
    expect(problem).toEqual({
      message:
        'yaml: line 10: document contains excessive aliasing: with its aliases expanded it takes more than 67108864 bytes (limit maxExpandedBytes); write the values out instead of using YAML anchors and aliases',
      line: 10,
      hint: expect.stringContaining('bounded at load'),
    });
  });

  it('modest aliases still load', async () => {
    await writeFile(join(root, 'aliases.yaml'), 'schema: example.thing\nname: x\nlabels: &labels {app: x}\ncopy: *labels\n---\nschema: example.thing\nname: y\nnote: "R&D &amp; more"\n');
    expect(await problemsFor('aliases.yaml')).toEqual([]);
    const config = await loadDeclarativeConfig(root);
    expect(config.others.find((other) => (other as { name?: string }).name === 'x')).toMatchObject({ blob: { copy: { app: 'x' } } });
  });

  it('non-UTF-8 bytes in a YAML file', async () => {
    await writeFile(join(root, 'binary.yaml'), Buffer.concat([Buffer.from('schema: olm.package\nname: '), Buffer.from([0xff, 0xfe, 0x00]), Buffer.from('\n')]));
    expect(await problemsFor('binary.yaml')).toMatchObject([{ message: 'yaml: invalid UTF-8 byte 0xff at offset 26', line: 2 }]);
  });

  it('non-UTF-8 bytes in a JSON stream: U+FFFD inside strings (as Go decodes them), a syntax error elsewhere', async () => {
    const invalid = Buffer.from([0xff, 0xfe]);
    await writeFile(join(root, 'in-string.json'), Buffer.concat([Buffer.from('{"schema": "my.thing", "name": "a'), invalid, Buffer.from('"}\n')]));
    await writeFile(join(root, 'between.json'), Buffer.concat([Buffer.from('{"schema": "my.thing", "name": "b"}\n\n'), invalid, Buffer.from('\n')]));
    expect(await problemsFor('in-string.json')).toEqual([]);
    const [problem, ...rest] = await problemsFor('between.json');
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({ line: 3, message: expect.stringMatching(/^invalid character '.' looking for beginning of value$/) });
    const config = await loadDeclarativeConfig(root);
    expect(config.others.map((other) => other.name)).toEqual(['b', 'a\ufffd\ufffd']); // files in path order; b's blob precedes its bad bytes
  });

  it('a symbolic link loop and a dangling link', async () => {
    await symlink(join(root, 'loop-b'), join(root, 'loop-a'));
    await symlink(join(root, 'loop-a'), join(root, 'loop-b'));
    await symlink(join(root, 'nowhere'), join(root, 'dangling'));
    expect(await problemsFor('loop-a')).toMatchObject([{ message: 'open loop-a: too many levels of symbolic links' }]);
    expect(await problemsFor('dangling')).toMatchObject([{ message: 'open dangling: no such file or directory' }]);
  });

  it('a symbolic link to a directory is not followed', async () => {
    await mkdir(join(root, 'real'));
    await symlink(join(root, 'real'), join(root, 'link'));
    expect(await problemsFor('link')).toMatchObject([{ message: 'read link: is a directory' }]);
  });

  it('an unreadable file (a socket, or a file without read permission)', async () => {
    const server = createServer();
    servers.push(server);
    server.listen(join(root, 'socket'));
    await once(server, 'listening');
    expect(await problemsFor('socket')).toMatchObject([{ message: 'read socket: not a regular file' }]);

    await writeFile(join(root, 'secret.yaml'), 'schema: olm.package\nname: secret\n');
    await chmod(join(root, 'secret.yaml'), 0o000);
    const isRoot = process.getuid?.() === 0;
    // root reads files regardless of their mode; elsewhere the permission error is reported.
    expect(await problemsFor('secret.yaml')).toEqual(isRoot ? [] : [expect.objectContaining({ message: 'read secret.yaml: permission denied' })]);
  });

  it('nulls where objects belong decode to zero values (as Go) and fail validation, not the loader', async () => {
    await writeFile(
      join(root, 'nulls.yaml'),
      'schema: olm.channel\npackage: good\nname: stable\nentries: [null]\n---\nschema: olm.deprecations\npackage: good\nentries:\n  - reference: null\n---\nschema: olm.bundle\npackage: good\nname: b\nrelatedImages: [null]\nproperties: [null, {type: olm.package, value: {packageName: good, version: 1.0.0}}]\n',
    );
    expect(await problemsFor('nulls.yaml')).toEqual([]);
    const report = await validateCatalog(root);
    expect(report.valid).toBe(false);
    expect(report.errors.map((error) => error.message)).toContain('schema must be set for deprecation entry [0] for package "good"');
    expect(report.errors.map((error) => error.message)).toContain('package "good", bundle "b" not found in any channel entries');
  });

  it('a catalog with load problems is reported invalid with every problem, not thrown', async () => {
    await writeFile(join(root, 'a.yaml'), 'name: [');
    await writeFile(join(root, 'b.json'), '{"schema": 1}');
    const report = await validateCatalog(root);
    expect(report.valid).toBe(false);
    expect(report.errors.map((error) => error.file)).toEqual(['a.yaml', 'b.json']);
    expect(report.text).toContain('b.json:1: expected value for key "schema" to be a string, got float64');
  });
});

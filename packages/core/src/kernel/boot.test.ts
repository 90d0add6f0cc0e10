import { describe, expect, it } from 'vitest';
import { boot, type KernelProblem } from './boot.js';
import { hasErrorCode, KernelErrorCodes } from './errors.js';
import { contribute, definePlugin, provision, type Plugin } from './plugin.js';
import { checks, greeter, plain, shapes } from './test-plugins.js';

async function bootProblems(plugins: Plugin[], provide = [] as ReturnType<typeof provision>[]): Promise<KernelProblem[]> {
  try {
    await boot({ plugins, provide });
  } catch (error) {
    expect(hasErrorCode(error, KernelErrorCodes.bootFailed)).toBe(true);
    return (error as { details: { problems: KernelProblem[] } }).details.problems;
  }
  throw new Error('boot unexpectedly succeeded');
}

const providing = (id: string, ...provide: ReturnType<typeof contribute>[]) =>
  plain(id, { provides: [...new Set(provide.map((item) => item.point))], init: () => ({ provide }) });

describe('boot: wiring problems', () => {
  it('reports a duplicate plugin', async () => {
    const problems = await bootProblems([plain('a'), plain('a')]);
    expect(problems).toEqual([
      {
        code: KernelErrorCodes.duplicatePlugin,
        plugin: 'a',
        message: 'plugin "a" is listed more than once; remove the duplicate from the plugin list',
      },
    ]);
  });

  it('reports a missing dependency with its range', async () => {
    const problems = await bootProblems([plain('a', { dependsOn: { resolver: '^1' } })]);
    expect(problems.map((problem) => problem.code)).toEqual([KernelErrorCodes.missingDependency]);
    expect(problems[0]!.message).toBe('plugin "a" depends on "resolver" (^1), which is not in the plugin list; add it');
  });

  it('reports a semver range that the installed version does not meet', async () => {
    const problems = await bootProblems([
      definePlugin({ id: 'resolver', version: '2.3.0', init: () => {} }),
      plain('a', { dependsOn: { resolver: '^1.2.0' } }),
    ]);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.code).toBe(KernelErrorCodes.versionMismatch);
    expect(problems[0]!.message).toContain('needs "resolver" ^1.2.0, but version 2.3.0 is installed');
  });

  it('names both providers when two plugins provide one single point, before any init runs', async () => {
    const initialised: string[] = [];
    const problems = await bootProblems([
      plain('sat-one', { provides: [greeter], init: () => void initialised.push('sat-one') }),
      plain('sat-two', { provides: [greeter], init: () => void initialised.push('sat-two') }),
    ]);
    expect(problems).toEqual([
      {
        code: KernelErrorCodes.duplicateProvider,
        plugin: 'sat-two',
        message: 'extension point "test.greeter" is provided by both "sat-one" and "sat-two"; boot only one of them',
      },
    ]);
    expect(initialised).toEqual([]);
  });

  it('names both providers of one key of a keyed point, and allows different keys', async () => {
    const problems = await bootProblems([
      providing('p1', contribute(shapes, { name: 'square', sides: 4 })),
      providing('p2', contribute(shapes, { name: 'triangle', sides: 3 }), contribute(shapes, { name: 'square', sides: 4 })),
    ]);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toBe('key "square" of extension point "test.shapes" is provided by both "p1" and "p2"; boot only one of them');
  });

  it('reports a consumed single point that nobody provides, with the dependency name and the point hint', async () => {
    const problems = await bootProblems([plain('resolver', { deps: { hello: greeter } })]);
    expect(problems).toEqual([
      {
        code: KernelErrorCodes.missingExtension,
        plugin: 'resolver',
        message:
          'plugin "resolver" consumes extension point "test.greeter" (says hello) as "hello", but nothing provides it. Hint: boot @test/plugin-greeter',
      },
    ]);
  });

  it('reports a provider that declared a point but contributed nothing to it', async () => {
    const problems = await bootProblems([plain('lazy', { provides: [greeter] }), plain('user', { deps: { hello: greeter } })]);
    expect(problems.map((problem) => [problem.code, problem.plugin])).toEqual([[KernelErrorCodes.missingExtension, 'user']]);
  });

  it('counts a point provided by the app as provided', async () => {
    const kernel = await boot({
      plugins: [plain('resolver', { deps: { hello: greeter } })],
      provide: [provision(greeter, { greet: (name) => `hi ${name}` })],
    });
    expect(kernel.get(greeter).greet('olm')).toBe('hi olm');
    await kernel.stop();
  });

  it('collects every problem at once and starts nothing', async () => {
    const started: string[] = [];
    const problems = await bootProblems([
      plain('ok', { init: () => ({ start: () => void started.push('ok') }) }),
      plain('a', { dependsOn: { missing: '^1' } }),
      plain('a'),
      plain('needs', { deps: { hello: greeter } }),
    ]);
    expect(problems.map((problem) => problem.code).sort()).toEqual(
      [KernelErrorCodes.duplicatePlugin, KernelErrorCodes.missingDependency, KernelErrorCodes.missingExtension].sort(),
    );
    expect(started).toEqual([]);
  });

  it('collects every init failure and clash, and starts nothing', async () => {
    const started: string[] = [];
    const problems = await bootProblems([
      plain('ok', { init: () => ({ start: () => void started.push('ok') }) }),
      plain('throws', {
        init: () => {
          throw new Error('boom');
        },
      }),
      providing('p1', contribute(shapes, { name: 'square', sides: 4 })),
      providing('p2', contribute(shapes, { name: 'square', sides: 4 })),
    ]);
    expect(problems.map((problem) => problem.message)).toEqual([
      'key "square" of extension point "test.shapes" is provided by both "p1" and "p2"; boot only one of them',
      'plugin "throws" failed while initialising: boom',
    ]);
    expect(problems.map((problem) => problem.code)).toEqual([KernelErrorCodes.duplicateProvider, KernelErrorCodes.initFailed]);
    expect(started).toEqual([]);
  });

  it('does not initialise a consumer of a provider that failed, reporting only the provider', async () => {
    const initialised: string[] = [];
    const problems = await bootProblems([
      plain('greeter', {
        provides: [greeter],
        init: () => {
          throw new Error('no greeting today');
        },
      }),
      plain('user', { deps: { hello: greeter }, init: () => void initialised.push('user') }),
      plain('after', { dependsOn: { user: '*' }, init: () => void initialised.push('after') }),
    ]);
    expect(problems.map((problem) => problem.message)).toEqual(['plugin "greeter" failed while initialising: no greeting today']);
    expect(initialised).toEqual([]);
  });

  it('renders all problems in the error message', async () => {
    const error = await boot({ plugins: [plain('a'), plain('a'), plain('b', { dependsOn: { c: '1' } })] }).catch((caught: unknown) => caught);
    expect(hasErrorCode(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toMatch(/^boot failed with 2 problems; nothing was started:/);
    expect(message).toContain('[OLM_KERNEL_DUPLICATE_PLUGIN]');
    expect(message).toContain('[OLM_KERNEL_MISSING_DEPENDENCY]');
  });

  it('rejects things that are not plugins, versions that are not semver, and deps or provides that are not points', async () => {
    const problems = await bootProblems([
      { id: '', version: '1.0.0', init: () => {} } as Plugin,
      { id: 'old-style', version: '1.0.0', register: () => {} } as unknown as Plugin,
      definePlugin({ id: 'v', version: 'latest', init: () => {} }),
      plain('w', { deps: { hello: 'test.greeter' as never }, provides: [{ id: 'x' } as never] }),
    ]);
    expect(problems.map((problem) => problem.code)).toEqual(Array(5).fill(KernelErrorCodes.invalidPlugin));
    expect(problems[1]!.message).toContain('it needs an id, a version and init()');
    expect(problems[2]!.message).toContain('"latest", which is not a semver version');
    expect(problems[3]!.message).toBe(
      'plugin "w" consumes "hello", which is not an extension point; give a point made with create*ExtensionPoint, or optional(point)',
    );
    expect(problems[4]!.message).toBe('plugin "w" provides[0] is not an extension point; list the points its init contributes to');
  });

  it('rejects a dependsOn range that is not semver', async () => {
    const problems = await bootProblems([plain('resolver'), plain('a', { dependsOn: { resolver: 'one point oh' } })]);
    expect(problems).toEqual([
      {
        code: KernelErrorCodes.invalidPlugin,
        plugin: 'a',
        message: 'plugin "a" depends on "resolver" with "one point oh", which is not a semver range; use one such as ^1.2.0',
      },
    ]);
  });

  it('reports a keyed contribution without a key, or one whose key cannot be read', async () => {
    const problems = await bootProblems([
      providing('blank', contribute(shapes, { name: '', sides: 0 })),
      providing('broken', contribute(shapes, null as never)),
    ]);
    expect(problems.map((problem) => [problem.code, problem.plugin])).toEqual([
      [KernelErrorCodes.invalidPlugin, 'blank'],
      [KernelErrorCodes.invalidPlugin, 'broken'],
    ]);
    expect(problems[0]!.message).toBe('"blank" contributed to keyed extension point "test.shapes" without a key');
    expect(problems[1]!.message).toMatch(/^"broken" contributed something extension point "test.shapes" cannot read a key from: /);
  });

  it('refuses a contribution to a point the plugin did not declare in provides', async () => {
    const problems = await bootProblems([plain('sneaky', { init: () => ({ provide: [contribute(checks, 'disk')] }) })]);
    expect(problems).toEqual([
      {
        code: KernelErrorCodes.invalidPlugin,
        plugin: 'sneaky',
        message: 'plugin "sneaky" contributed to extension point "test.checks" without declaring it; add the point to its provides',
      },
    ]);
  });

  it('names the app when a plugin provides a point the app already provides', async () => {
    const problems = await bootProblems([plain('sat-one', { provides: [greeter] })], [provision(greeter, { greet: () => 'app' })]);
    expect(problems.map((problem) => problem.message)).toEqual([
      'extension point "test.greeter" is provided by both "app" and "sat-one"; boot only one of them',
    ]);
  });
});

describe('boot: lifecycle', () => {
  const recording = (log: string[], id: string, extra: Parameters<typeof plain>[1] = {}) =>
    plain(id, {
      ...extra,
      init: () => {
        log.push(`init ${id}`);
        return { start: () => void log.push(`start ${id}`), stop: () => void log.push(`stop ${id}`) };
      },
    });
  const recordingPlugins = (log: string[]) => [
    recording(log, 'controller', { dependsOn: { resolver: '^1' } }),
    recording(log, 'resolver', { dependsOn: { 'plugin-sat': '^1' } }),
    recording(log, 'plugin-sat'),
  ];

  it('initialises every plugin before starting any, in dependency order, and stops in reverse', async () => {
    for (const reorder of [(list: Plugin[]) => list, (list: Plugin[]) => [...list].reverse()]) {
      const log: string[] = [];
      const kernel = await boot({ plugins: reorder(recordingPlugins(log)) });
      expect(kernel.plugins.map((plugin) => plugin.id)).toEqual(['plugin-sat', 'resolver', 'controller']);
      await kernel.stop();
      await kernel.stop();
      expect(log).toEqual([
        'init plugin-sat',
        'init resolver',
        'init controller',
        'start plugin-sat',
        'start resolver',
        'start controller',
        'stop controller',
        'stop resolver',
        'stop plugin-sat',
      ]);
    }
  });

  it('reports a rollback that fails too, after stopping every other started plugin', async () => {
    const log: string[] = [];
    const error = await boot({
      plugins: [
        plain('a', { init: () => ({ stop: () => void log.push('stop a') }) }),
        plain('b', {
          dependsOn: { a: '*' },
          init: () => ({
            stop: () => {
              throw new Error('lock file missing');
            },
          }),
        }),
        plain('c', {
          dependsOn: { b: '*' },
          init: () => ({
            start: () => {
              throw 'port taken';
            },
          }),
        }),
      ],
    }).catch((caught: unknown) => caught);
    expect(hasErrorCode(error, KernelErrorCodes.startFailed)).toBe(true);
    expect((error as Error).message).toBe(
      'plugin "c" failed to start: port taken. Stopped again, in reverse order: b, a. Rollback also failed: "b": lock file missing.',
    );
    expect((error as { details: unknown }).details).toEqual({ plugin: 'c', rolledBack: ['b', 'a'] });
    expect(log).toEqual(['stop a']);
  });

  it('rolls back started plugins in reverse when one fails to start', async () => {
    const log: string[] = [];
    const plugins = [
      ...recordingPlugins(log),
      plain('zz-broken', {
        dependsOn: { controller: '*' },
        init: () => ({
          start: () => {
            throw new Error('port 8080 in use');
          },
          stop: () => void log.push('stop zz-broken'),
        }),
      }),
    ];
    const error = await boot({ plugins }).catch((caught: unknown) => caught);
    expect(hasErrorCode(error, KernelErrorCodes.startFailed)).toBe(true);
    expect((error as Error).message).toBe(
      'plugin "zz-broken" failed to start: port 8080 in use. Stopped again, in reverse order: controller, resolver, plugin-sat.',
    );
    expect(log.filter((line) => !line.startsWith('init'))).toEqual([
      'start plugin-sat',
      'start resolver',
      'start controller',
      'stop controller',
      'stop resolver',
      'stop plugin-sat',
    ]);
  });

  it('keeps stopping the other plugins when one fails to stop, then reports it', async () => {
    const log: string[] = [];
    const kernel = await boot({
      plugins: [
        plain('a', { init: () => ({ stop: () => void log.push('stop a') }) }),
        plain('b', {
          dependsOn: { a: '*' },
          init: () => ({
            stop: () => {
              throw new Error('socket already closed');
            },
          }),
        }),
      ],
    });
    const error = await kernel.stop().catch((caught: unknown) => caught);
    expect(hasErrorCode(error, KernelErrorCodes.stopFailed)).toBe(true);
    expect((error as Error).message).toContain('"b": socket already closed');
    expect(log).toEqual(['stop a']);
  });

  it('reads every contribution after boot, combined by cardinality', async () => {
    const kernel = await boot({
      plugins: [
        providing('shapes-a', contribute(shapes, { name: 'square', sides: 4 }), contribute(checks, 'disk')),
        providing('shapes-b', contribute(shapes, { name: 'triangle', sides: 3 }), contribute(checks, 'network')),
      ],
    });
    expect([...kernel.get(shapes).keys()]).toEqual(['square', 'triangle']);
    expect(kernel.get(checks)).toEqual(['disk', 'network']);
    expect(kernel.find(greeter)).toBeUndefined();
    expect(() => kernel.get(greeter)).toThrowError(/has no provider\. Hint: boot @test\/plugin-greeter/);
    await kernel.stop();
  });
});

describe('errors', () => {
  it('recognises errors by code even from another copy of the package', () => {
    const foreign = Object.assign(new Error('from another copy'), { code: KernelErrorCodes.startFailed });
    expect(hasErrorCode(foreign, KernelErrorCodes.startFailed)).toBe(true);
    expect(hasErrorCode(foreign, KernelErrorCodes.stopFailed)).toBe(false);
    expect(hasErrorCode(new Error('plain'))).toBe(false);
    expect(hasErrorCode('OLM_KERNEL_START_FAILED')).toBe(false);
  });
});

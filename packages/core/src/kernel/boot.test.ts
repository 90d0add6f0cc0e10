import { describe, expect, it } from 'vitest';
import { boot, type KernelProblem } from './boot.js';
import { hasErrorCode, KernelErrorCodes } from './errors.js';
import { createKeyedExtensionPoint, createListExtensionPoint, createSingleExtensionPoint } from './extension-point.js';
import { definePlugin, provision, type Plugin } from './plugin.js';

const greeter = createSingleExtensionPoint<{ greet(name: string): string }>({
  id: 'test.greeter',
  description: 'says hello',
  hint: 'boot @test/plugin-greeter',
});
const shapes = createKeyedExtensionPoint<{ name: string; sides: number }>({
  id: 'test.shapes',
  description: 'shapes by name',
  keyOf: (shape) => shape.name,
});
const checks = createListExtensionPoint<string>({ id: 'test.checks', description: 'preflight checks' });

const plain = (id: string, extra: Partial<Parameters<typeof definePlugin>[0]> = {}): Plugin =>
  definePlugin({ id, version: '1.0.0', register: () => {}, ...extra });

async function bootProblems(plugins: Plugin[], provide = [] as ReturnType<typeof provision>[]): Promise<KernelProblem[]> {
  try {
    await boot({ plugins, provide });
  } catch (error) {
    expect(hasErrorCode(error, KernelErrorCodes.bootFailed)).toBe(true);
    return (error as { details: { problems: KernelProblem[] } }).details.problems;
  }
  throw new Error('boot unexpectedly succeeded');
}

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
    expect(problems[0]!.message).toBe(
      'plugin "a" depends on "resolver" (^1), which is not in the plugin list; add it',
    );
  });

  it('reports a semver range that the installed version does not meet', async () => {
    const problems = await bootProblems([
      definePlugin({ id: 'resolver', version: '2.3.0', register: () => {} }),
      plain('a', { dependsOn: { resolver: '^1.2.0' } }),
    ]);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.code).toBe(KernelErrorCodes.versionMismatch);
    expect(problems[0]!.message).toContain('needs "resolver" ^1.2.0, but version 2.3.0 is installed');
  });

  it('prints a dependency cycle as a -> b -> a', async () => {
    const problems = await bootProblems([
      plain('b', { dependsOn: { a: '*' } }),
      plain('a', { dependsOn: { b: '*' } }),
      plain('c'),
    ]);
    expect(problems.map((problem) => problem.code)).toEqual([KernelErrorCodes.dependencyCycle]);
    expect(problems[0]!.message).toContain('a -> b -> a');
  });

  it('prints a three-plugin cycle starting at its smallest id', async () => {
    const problems = await bootProblems([
      plain('z', { dependsOn: { x: '*' } }),
      plain('x', { dependsOn: { y: '*' } }),
      plain('y', { dependsOn: { z: '*' } }),
    ]);
    expect(problems[0]!.message).toContain('x -> y -> z -> x');
  });

  it('names both providers when two plugins provide one single point', async () => {
    const problems = await bootProblems([
      plain('sat-one', { register: (ctx) => ctx.provide(greeter, { greet: () => 'one' }) }),
      plain('sat-two', { register: (ctx) => ctx.provide(greeter, { greet: () => 'two' }) }),
    ]);
    expect(problems).toEqual([
      {
        code: KernelErrorCodes.duplicateProvider,
        plugin: 'sat-two',
        message: 'extension point "test.greeter" is provided by both "sat-one" and "sat-two"; boot only one of them',
      },
    ]);
  });

  it('names both providers of one key of a keyed point, and allows different keys', async () => {
    const problems = await bootProblems([
      plain('p1', { register: (ctx) => ctx.provide(shapes, { name: 'square', sides: 4 }) }),
      plain('p2', {
        register: (ctx) => {
          ctx.provide(shapes, { name: 'triangle', sides: 3 });
          ctx.provide(shapes, { name: 'square', sides: 4 });
        },
      }),
    ]);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toBe(
      'key "square" of extension point "test.shapes" is provided by both "p1" and "p2"; boot only one of them',
    );
  });

  it('reports a required point that nobody provides, with the point hint', async () => {
    const problems = await bootProblems([plain('resolver', { requires: [greeter] })]);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.code).toBe(KernelErrorCodes.missingExtension);
    expect(problems[0]!.message).toBe(
      'plugin "resolver" requires extension point "test.greeter" (says hello), but nothing provides it. Hint: boot @test/plugin-greeter',
    );
  });

  it('counts a point provided by the app as provided', async () => {
    const kernel = await boot({
      plugins: [plain('resolver', { requires: [greeter] })],
      provide: [provision(greeter, { greet: (name) => `hi ${name}` })],
    });
    expect(kernel.get(greeter).greet('olm')).toBe('hi olm');
    await kernel.stop();
  });

  it('collects every problem at once and starts nothing', async () => {
    const started: string[] = [];
    const problems = await bootProblems([
      plain('ok', { register: (ctx) => ctx.onStart(() => void started.push('ok')) }),
      plain('a', { dependsOn: { missing: '^1' } }),
      plain('a'),
      plain('needs', { requires: [greeter] }),
      plain('throws', {
        register: () => {
          throw new Error('boom');
        },
      }),
    ]);
    expect(problems.map((problem) => problem.code).sort()).toEqual(
      [
        KernelErrorCodes.duplicatePlugin,
        KernelErrorCodes.missingDependency,
        KernelErrorCodes.missingExtension,
        KernelErrorCodes.registerFailed,
      ].sort(),
    );
    expect(problems.find((problem) => problem.code === KernelErrorCodes.registerFailed)!.message).toBe(
      'plugin "throws" failed while registering: boom',
    );
    expect(started).toEqual([]);
  });

  it('renders all problems in the error message', async () => {
    const error = await boot({ plugins: [plain('a'), plain('a'), plain('b', { dependsOn: { c: '1' } })] }).catch(
      (caught: unknown) => caught,
    );
    expect(hasErrorCode(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toMatch(/^boot failed with 2 problems; nothing was started:/);
    expect(message).toContain('[OLM_KERNEL_DUPLICATE_PLUGIN]');
    expect(message).toContain('[OLM_KERNEL_MISSING_DEPENDENCY]');
  });

  it('rejects things that are not plugins and versions that are not semver', async () => {
    const problems = await bootProblems([
      { id: '', version: '1.0.0', register: () => {} } as Plugin,
      definePlugin({ id: 'v', version: 'latest', register: () => {} }),
    ]);
    expect(problems.map((problem) => problem.code)).toEqual([
      KernelErrorCodes.invalidPlugin,
      KernelErrorCodes.invalidPlugin,
    ]);
    expect(problems[1]!.message).toContain('"latest", which is not a semver version');
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

  it('prints a plugin that depends on itself as a one-step cycle', async () => {
    const problems = await bootProblems([plain('a', { dependsOn: { a: '*' } })]);
    expect(problems.map((problem) => problem.code)).toEqual([KernelErrorCodes.dependencyCycle]);
    expect(problems[0]!.message).toContain('a -> a;');
  });

  it('reports each of two separate cycles once', async () => {
    const problems = await bootProblems([
      plain('a', { dependsOn: { b: '*' } }),
      plain('b', { dependsOn: { a: '*' } }),
      plain('x', { dependsOn: { y: '*' } }),
      plain('y', { dependsOn: { x: '*' } }),
      plain('depends-on-cycle', { dependsOn: { a: '*' } }),
    ]);
    expect(problems.map((problem) => problem.message.match(/cycle: (.*);/)?.[1])).toEqual(['a -> b -> a', 'x -> y -> x']);
  });

  it('reports a keyed contribution without a key, or one whose key cannot be read', async () => {
    const problems = await bootProblems([
      plain('blank', { register: (ctx) => ctx.provide(shapes, { name: '', sides: 0 }) }),
      plain('broken', { register: (ctx) => ctx.provide(shapes, null as never) }),
    ]);
    expect(problems.map((problem) => [problem.code, problem.plugin])).toEqual([
      [KernelErrorCodes.invalidPlugin, 'blank'],
      [KernelErrorCodes.invalidPlugin, 'broken'],
    ]);
    expect(problems[0]!.message).toBe('"blank" contributed to keyed extension point "test.shapes" without a key');
    expect(problems[1]!.message).toMatch(/^"broken" contributed something extension point "test.shapes" cannot read a key from: /);
  });

  it('names the app when a plugin provides a point the app already provides', async () => {
    const problems = await bootProblems(
      [plain('sat-one', { register: (ctx) => ctx.provide(greeter, { greet: () => 'plugin' }) })],
      [provision(greeter, { greet: () => 'app' })],
    );
    expect(problems.map((problem) => problem.message)).toEqual([
      'extension point "test.greeter" is provided by both "app" and "sat-one"; boot only one of them',
    ]);
  });

  it('refuses declarations made after register() returned', async () => {
    let lateProvide: (() => void) | undefined;
    const kernel = await boot({
      plugins: [plain('late', { register: (ctx) => void (lateProvide = () => ctx.provide(checks, 'x')) })],
    });
    expect(() => lateProvide!()).toThrowError(/called provide\(\) after register\(\) returned/);
    await kernel.stop();
  });
});

describe('boot: ordering and lifecycle', () => {
  const recordingPlugins = (log: string[]) => [
    plain('controller', {
      dependsOn: { resolver: '^1' },
      register: (ctx) => {
        ctx.onStart(() => void log.push('start controller'));
        ctx.onStop(() => void log.push('stop controller'));
      },
    }),
    plain('resolver', {
      dependsOn: { 'plugin-sat': '^1' },
      register: (ctx) => {
        ctx.onStart(() => void log.push('start resolver'));
        ctx.onStop(() => void log.push('stop resolver'));
      },
    }),
    plain('plugin-sat', {
      register: (ctx) => {
        ctx.onStart(() => void log.push('start plugin-sat'));
        ctx.onStop(() => void log.push('stop plugin-sat'));
      },
    }),
  ];

  it('starts in dependency order whatever the list order, and stops in reverse', async () => {
    for (const reorder of [(list: Plugin[]) => list, (list: Plugin[]) => [...list].reverse()]) {
      const log: string[] = [];
      const kernel = await boot({ plugins: reorder(recordingPlugins(log)) });
      expect(kernel.plugins.map((plugin) => plugin.id)).toEqual(['plugin-sat', 'resolver', 'controller']);
      await kernel.stop();
      await kernel.stop();
      expect(log).toEqual([
        'start plugin-sat',
        'start resolver',
        'start controller',
        'stop controller',
        'stop resolver',
        'stop plugin-sat',
      ]);
    }
  });

  it('boots the same order for every permutation of the list', async () => {
    const plugins = [
      plain('controller', { dependsOn: { resolver: '^1', registry: '^1' } }),
      plain('resolver', { dependsOn: { 'plugin-sat': '^1' } }),
      plain('registry'),
      plain('plugin-sat'),
      plain('metrics'),
    ];
    const permutations = (list: Plugin[]): Plugin[][] =>
      list.length <= 1 ? [list] : list.flatMap((item, index) => permutations(list.filter((_, other) => other !== index)).map((rest) => [item, ...rest]));
    const orders = new Set<string>();
    for (const permutation of permutations(plugins)) {
      const kernel = await boot({ plugins: permutation });
      orders.add(kernel.plugins.map((plugin) => plugin.id).join(' '));
      await kernel.stop();
    }
    // Dependencies first; plugins that are ready together start in id order.
    expect([...orders]).toEqual(['metrics plugin-sat registry resolver controller']);
  });

  it('runs one plugin\'s hooks in declaration order on start and in reverse on stop', async () => {
    const log: string[] = [];
    const kernel = await boot({
      plugins: [
        plain('server', {
          register: (ctx) => {
            ctx.onStart(() => void log.push('open socket'));
            ctx.onStart(() => void log.push('start listening'));
            ctx.onStop(() => void log.push('close socket'));
            ctx.onStop(() => void log.push('stop listening'));
          },
        }),
      ],
    });
    await kernel.stop();
    expect(log).toEqual(['open socket', 'start listening', 'stop listening', 'close socket']);
  });

  it('reports a rollback that fails too, after stopping every other started plugin', async () => {
    const log: string[] = [];
    const error = await boot({
      plugins: [
        plain('a', { register: (ctx) => ctx.onStop(() => void log.push('stop a')) }),
        plain('b', {
          dependsOn: { a: '*' },
          register: (ctx) =>
            ctx.onStop(() => {
              throw new Error('lock file missing');
            }),
        }),
        plain('c', {
          dependsOn: { b: '*' },
          register: (ctx) =>
            ctx.onStart(() => {
              throw 'port taken';
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
        register: (ctx) => {
          ctx.onStart(() => {
            throw new Error('port 8080 in use');
          });
          ctx.onStop(() => void log.push('stop zz-broken'));
        },
      }),
    ];
    const error = await boot({ plugins }).catch((caught: unknown) => caught);
    expect(hasErrorCode(error, KernelErrorCodes.startFailed)).toBe(true);
    expect((error as Error).message).toBe(
      'plugin "zz-broken" failed to start: port 8080 in use. Stopped again, in reverse order: controller, resolver, plugin-sat.',
    );
    expect(log).toEqual([
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
        plain('a', { register: (ctx) => ctx.onStop(() => void log.push('stop a')) }),
        plain('b', {
          dependsOn: { a: '*' },
          register: (ctx) =>
            ctx.onStop(() => {
              throw new Error('socket already closed');
            }),
        }),
      ],
    });
    const error = await kernel.stop().catch((caught: unknown) => caught);
    expect(hasErrorCode(error, KernelErrorCodes.stopFailed)).toBe(true);
    expect((error as Error).message).toContain('"b": socket already closed');
    expect(log).toEqual(['stop a']);
  });

  it('gives start hooks every contribution, combined by cardinality', async () => {
    let seen: unknown;
    const kernel = await boot({
      plugins: [
        plain('shapes-a', {
          register: (ctx) => {
            ctx.provide(shapes, { name: 'square', sides: 4 });
            ctx.provide(checks, 'disk');
          },
        }),
        plain('shapes-b', {
          dependsOn: { 'shapes-a': '*' },
          register: (ctx) => {
            ctx.provide(shapes, { name: 'triangle', sides: 3 });
            ctx.provide(checks, 'network');
            ctx.onStart((extensions) => {
              seen = {
                shapes: [...extensions.get(shapes).keys()],
                checks: extensions.get(checks),
                greeter: extensions.find(greeter),
              };
            });
          },
        }),
      ],
    });
    expect(seen).toEqual({ shapes: ['square', 'triangle'], checks: ['disk', 'network'], greeter: undefined });
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

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

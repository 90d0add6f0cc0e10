import { describe, expect, it } from 'vitest';
import { boot, type KernelProblem } from './boot.js';
import { hasErrorCode, KernelErrorCodes } from './errors.js';
import { createSingleExtensionPoint } from './extension-point.js';
import { contribute, optional, provision, type Plugin } from './plugin.js';
import { checks, greeter, plain, shapes } from './test-plugins.js';

/** A stand-in for the shared Kubernetes client: one instance for the process, counted. */
class FakeClient {
  static made = 0;
  readonly serial = ++FakeClient.made;
}
const client = createSingleExtensionPoint<FakeClient>({ id: 'test.client', description: 'the shared client', hint: 'the app provides it' });
const cache = createSingleExtensionPoint<{ size: number }>({ id: 'test.cache', description: 'the informer cache' });
const logger = createSingleExtensionPoint<{ lines: string[] }>({ id: 'test.logger', description: 'the logger' });

async function bootProblems(plugins: Plugin[]): Promise<KernelProblem[]> {
  const error = await boot({ plugins }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(hasErrorCode(error, KernelErrorCodes.bootFailed)).toBe(true);
  return (error as { details: { problems: KernelProblem[] } }).details.problems;
}

describe('boot: order from what plugins consume', () => {
  it('initialises a consumer after every provider of a point it consumes, whatever the list order', async () => {
    const plugins = [
      plain('runtime', { deps: { shapes }, provides: [cache], init: ({ shapes: all }) => ({ provide: [contribute(cache, { size: (all as ReadonlyMap<string, unknown>).size })] }) }),
      plain('a-shapes', { provides: [shapes], init: () => ({ provide: [contribute(shapes, { name: 'square', sides: 4 })] }) }),
      plain('z-shapes', { provides: [shapes], init: () => ({ provide: [contribute(shapes, { name: 'triangle', sides: 3 })] }) }),
      plain('reader', { deps: { cache }, init: () => {} }),
    ];
    const orders = new Set<string>();
    for (const list of [plugins, [...plugins].reverse()]) {
      const kernel = await boot({ plugins: list });
      orders.add(kernel.plugins.map((plugin) => plugin.id).join(' '));
      expect(kernel.get(cache)).toEqual({ size: 2 });
      await kernel.stop();
    }
    // Alphabetically "runtime" would come before "z-shapes": only its deps put it after.
    expect([...orders]).toEqual(['a-shapes z-shapes runtime reader']);
  });

  it('boots the same order for every permutation of the list', async () => {
    const plugins = [
      plain('controller', { dependsOn: { resolver: '^1' }, deps: { checks } }),
      plain('resolver', { deps: { greeter } }),
      plain('registry', { provides: [checks], init: () => ({ provide: [contribute(checks, 'catalogs')] }) }),
      plain('plugin-sat', { provides: [greeter], init: () => ({ provide: [contribute(greeter, { greet: () => 'sat' })] }) }),
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
    // Providers and dependencies first; plugins that are ready together go in id order.
    expect([...orders]).toEqual(['metrics plugin-sat registry resolver controller']);
  });

  it('hands every plugin the one client the app provided, and the contributions of the others', async () => {
    FakeClient.made = 0;
    const seen: Array<{ plugin: string; serial: number }> = [];
    const user = (id: string) =>
      plain(id, {
        deps: { client },
        init: ({ client: given }) => void seen.push({ plugin: id, serial: (given as FakeClient).serial }),
      });
    const shared = new FakeClient();
    const kernel = await boot({ plugins: [user('controller-a'), user('controller-b'), user('packageserver')], provide: [provision(client, shared)] });
    expect(seen).toEqual([
      { plugin: 'controller-a', serial: 1 },
      { plugin: 'controller-b', serial: 1 },
      { plugin: 'packageserver', serial: 1 },
    ]);
    expect(FakeClient.made).toBe(1);
    expect(kernel.get(client)).toBe(shared);
    await kernel.stop();
  });

  it('gives an optional single point as undefined, and empty keyed and list points', async () => {
    let received: unknown;
    const kernel = await boot({
      plugins: [plain('quiet', { deps: { logger: optional(logger), shapes, checks }, init: (deps) => void (received = deps) })],
    });
    expect(received).toEqual({ logger: undefined, shapes: new Map(), checks: [] });
    await kernel.stop();
  });

  it('gives a plugin that consumes a point it provides the other providers contributions', async () => {
    let strategies: unknown;
    const kernel = await boot({
      plugins: [
        plain('csv', {
          deps: { shapes },
          provides: [shapes],
          init: ({ shapes: others }) => {
            strategies = [...(others as ReadonlyMap<string, unknown>).keys()];
            return { provide: [contribute(shapes, { name: 'deployment', sides: 1 })] };
          },
        }),
        plain('extra', { provides: [shapes], init: () => ({ provide: [contribute(shapes, { name: 'helm', sides: 2 })] }) }),
      ],
    });
    expect(kernel.plugins.map((plugin) => plugin.id)).toEqual(['extra', 'csv']);
    expect(strategies).toEqual(['helm']);
    expect([...kernel.get(shapes).keys()]).toEqual(['helm', 'deployment']);
    await kernel.stop();
  });

  it('lists every missing service at once, each with the plugin, the name and the hint', async () => {
    const problems = await bootProblems([
      plain('controller', { deps: { client, logger: optional(logger) } }),
      plain('packageserver', { deps: { client, cache } }),
    ]);
    expect(problems.map((problem) => problem.message)).toEqual([
      'plugin "controller" consumes extension point "test.client" (the shared client) as "client", but nothing provides it. Hint: the app provides it',
      'plugin "packageserver" consumes extension point "test.client" (the shared client) as "client", but nothing provides it. Hint: the app provides it',
      'plugin "packageserver" consumes extension point "test.cache" (the informer cache) as "cache", but nothing provides it. Add a plugin that provides it, or provide it in boot({ provide }).',
    ]);
  });
});

describe('boot: cycles', () => {
  it('prints a dependsOn cycle as a -> b -> a, with its links', async () => {
    const problems = await bootProblems([plain('b', { dependsOn: { a: '*' } }), plain('a', { dependsOn: { b: '*' } }), plain('c')]);
    expect(problems).toEqual([
      {
        code: KernelErrorCodes.dependencyCycle,
        plugin: 'a',
        message: 'plugins depend on each other in a cycle: a -> b -> a ("a" dependsOn "b"; "b" dependsOn "a"); remove one of these dependencies',
      },
    ]);
  });

  it('names the point that makes each step of a cycle through what plugins consume and provide', async () => {
    const problems = await bootProblems([
      plain('runtime', { deps: { checks }, provides: [cache] }),
      plain('controller', { deps: { cache }, provides: [checks] }),
    ]);
    expect(problems.map((problem) => problem.message)).toEqual([
      'plugins depend on each other in a cycle: controller -> runtime -> controller ' +
        '("controller" consumes "test.cache", which "runtime" provides; "runtime" consumes "test.checks", which "controller" provides); remove one of these dependencies',
    ]);
  });

  it('prints a three-plugin cycle starting at its smallest id', async () => {
    const problems = await bootProblems([
      plain('z', { dependsOn: { x: '*' } }),
      plain('x', { dependsOn: { y: '*' } }),
      plain('y', { dependsOn: { z: '*' } }),
    ]);
    expect(problems[0]!.message).toContain('x -> y -> z -> x');
  });

  it('prints a plugin that depends on itself as a one-step cycle', async () => {
    const problems = await bootProblems([plain('a', { dependsOn: { a: '*' } })]);
    expect(problems.map((problem) => problem.code)).toEqual([KernelErrorCodes.dependencyCycle]);
    expect(problems[0]!.message).toContain('a -> a (');
  });

  it('reports each of two separate cycles once', async () => {
    const problems = await bootProblems([
      plain('a', { dependsOn: { b: '*' } }),
      plain('b', { dependsOn: { a: '*' } }),
      plain('x', { dependsOn: { y: '*' } }),
      plain('y', { dependsOn: { x: '*' } }),
      plain('depends-on-cycle', { dependsOn: { a: '*' } }),
    ]);
    expect(problems.map((problem) => problem.message.match(/cycle: (.*?) \(/)?.[1])).toEqual(['a -> b -> a', 'x -> y -> x']);
  });
});

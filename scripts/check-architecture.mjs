#!/usr/bin/env node
// Architecture rules a reviewer should not have to check by hand: no controller package depends on
// another (they meet in @olm/core's contracts or @olm/api), and no package's source files import each
// other in a cycle. `node scripts/check-architecture.mjs [root]` prints the breaches and exits 1 on any;
// packages/core/test/architecture.test.ts runs it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const controllerPrefix = '@olm/controller-';
// The runtime is the controllers' library, not a controller.
const notControllers = new Set(['@olm/controller-runtime']);

/** `packages/controller-*` packages that depend on, or import from their sources, another controller package. */
export function controllerDependencyProblems(root) {
  const problems = [];
  for (const dir of packageDirs(root).filter((d) => d.split('/').at(-1).startsWith('controller-'))) {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    if (notControllers.has(manifest.name)) continue;
    const isController = (name) => name.startsWith(controllerPrefix) && !notControllers.has(name) && name !== manifest.name;
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      for (const name of Object.keys(manifest[field] ?? {}).filter(isController)) {
        problems.push(`${manifest.name} has ${name} in ${field}: controllers meet in @olm/core's contracts or @olm/api, not in each other`);
      }
    }
    for (const file of sourceFiles(join(dir, 'src'))) {
      for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
        const name = specifier.split('/').slice(0, 2).join('/');
        if (isController(name)) problems.push(`${relative(root, file)} imports ${specifier}: controllers meet in @olm/core's contracts or @olm/api, not in each other`);
      }
    }
  }
  return problems;
}

/** Import cycles between the source files (tests excluded) of each package under `packages/`, `apps/` and `examples/plugins/`. */
export function importCycleProblems(root) {
  const problems = [];
  for (const dir of packageDirs(root)) {
    const files = sourceFiles(join(dir, 'src'));
    const edges = new Map(files.map((file) => [file, localImports(file)]));
    for (const cycle of cyclesOf(edges)) problems.push(`import cycle in ${relative(root, dir)}: ${cycle.map((file) => relative(dir, file)).join(' -> ')}`);
  }
  return problems;
}

function packageDirs(root) {
  return ['packages', 'apps', 'examples/plugins'].flatMap((group) => {
    const base = join(root, group);
    if (!existsSync(base)) return [];
    return readdirSync(base)
      .map((name) => join(base, name))
      .filter((dir) => existsSync(join(dir, 'package.json')));
  });
}

function sourceFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(c|m)?tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

// `import … from 'x'`, `export … from 'x'`, `import 'x'` and `import('x')`.
const specifierPattern = /(?:^|\n)\s*((?:import|export)\s[^'"]*?)from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function importSpecifiers(text, { typeOnly = true } = {}) {
  return [...text.matchAll(specifierPattern)]
    .filter((match) => typeOnly || !/^(import|export)\s+type\s/.test(match[1] ?? ''))
    .map((match) => match[2] ?? match[3] ?? match[4]);
}

// Type-only imports are erased when compiled, so they cannot make a load-order cycle: not counted.
function localImports(file) {
  return importSpecifiers(readFileSync(file, 'utf8'), { typeOnly: false })
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => resolveSource(resolve(dirname(file), specifier)))
    .filter((target) => target !== undefined);
}

function resolveSource(path) {
  const stem = path.replace(/\.(c|m)?js$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, join(stem, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** One cycle per strongly connected component (Tarjan), as a path that returns to its start. */
function cyclesOf(edges) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  const visit = (node) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    const selfImport = (edges.get(node) ?? []).includes(node);
    if (component.length > 1 || selfImport) cycles.push(pathThrough(new Set(component), node, edges));
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles;
}

/** A shortest path from `start` back to itself inside `component`. */
function pathThrough(component, start, edges) {
  const previous = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const next of edges.get(node) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]));
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const problems = [...controllerDependencyProblems(root), ...importCycleProblems(root)];
  for (const problem of problems) console.error(problem);
  process.exit(problems.length > 0 ? 1 : 0);
}

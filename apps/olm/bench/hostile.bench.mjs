// `olm up` under hostile input (issue 21): for each attack, a fresh `olm up` (the built CLI, one process
// hosting the API server, the catalogs, the packageserver and the controllers) is started, attacked,
// and measured. One JSON line per case:
//   peakRssMB         the process's high-water mark (Linux VmHWM), start-up included;
//   longestBlockMs    the longest event-loop block seen by the process's own monitor
//                     (prom-client's nodejs_eventloop_lag_max_seconds, sampled every 250 ms: each
//                     scrape resets it, so the maximum over the samples is the longest block);
//   slowestScrapeMs   the slowest /metrics answer the sampler saw (what a kubelet probe would see);
//   alive, served     whether the process is still running, and whether a request of another client
//                     was answered after the attack;
//   outcome           what the attacker was told (an HTTP status, a condition, an exit message).
// Cases (each item of the issue, built from many pieces that are each under a limit):
//   1 catalog-aliases-across-documents  --catalog with 20 bundles, each expanding to ~29 MB
//   2 json-patch-copy-bomb              120 JSON Patch operations doubling a 100 KB value 40 times
//   3 stored-object-size                aliased YAML bodies expanding to 65 MB, 2 MB ConfigMaps x 8
//   5 bundle-image-layers               an image-only bundle of 20 layers of 250 MiB of zeros (one blob)
//   7 grpc-endless-stream               a CatalogSource whose registry streams bundles forever
// BENCH_QUICK=1 shrinks the attacks (item 5's layers to 32 MiB). Item 5 needs Debian's docker-registry
// (`scripts/setup.sh` installs it); without it the case reports `skipped`.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { KubeConfig } from '@kubernetes/client-node';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const quick = process.env.BENCH_QUICK === '1';
const only = process.env.BENCH_CASES?.split(',');
const print = (line) => console.log(JSON.stringify(line));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value) => (value === undefined ? undefined : Math.round(value));

/** Starts `olm up` on free ports and waits for its "running" line (or its exit). */
async function startOlmUp(directory, extraArgs = []) {
  const kubeconfigPath = join(directory, 'kubeconfig');
  const child = spawn(process.execPath, [cli, 'up', '--port', '0', '--metrics-port', '0', '--kubeconfig', kubeconfigPath, ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  const startedAt = performance.now();
  while (!output.includes('running; press Ctrl-C')) {
    if (child.exitCode !== null || child.signalCode !== null) return { child, output: () => output, exited, started: false };
    if (performance.now() - startedAt > 120_000) throw new Error(`olm up did not start within 120 s:\n${output}`);
    await sleep(50);
  }
  const metricsUrl = /metrics, health and readiness on (\S+)/.exec(output)[1];
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  return { child, output: () => output, exited, started: true, metricsUrl, kubeConfig };
}

/** One HTTPS request to the API server with the kubeconfig's credentials; resolves to { status, body }. */
async function kube(kubeConfig, method, path, body, contentType = 'application/json') {
  const server = new URL(kubeConfig.getCurrentCluster().server);
  const options = { method, hostname: server.hostname, port: server.port, path, headers: { accept: 'application/json' }, timeout: 120_000 };
  await kubeConfig.applyToHTTPSOptions(options);
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  if (payload !== undefined) options.headers['content-type'] = contentType;
  return new Promise((resolve) => {
    const req = httpsRequest(options, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text.length < 4096 ? (text += chunk) : undefined));
      res.on('end', () => resolve({ status: res.statusCode, body: text }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out after 120 s')));
    req.on('error', (error) => resolve({ status: 0, body: error.message }));
    req.end(payload);
  });
}

/** Scrapes /metrics every 250 ms: the longest event-loop block and the slowest answer. */
function sampleEventLoop(metricsUrl) {
  let longestBlockMs = 0;
  let slowestScrapeMs = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const startedAt = performance.now();
      try {
        const text = await (await fetch(`${metricsUrl}/metrics`, { signal: AbortSignal.timeout(60_000) })).text();
        const lag = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)?.[1];
        if (lag !== undefined) longestBlockMs = Math.max(longestBlockMs, Number(lag) * 1000);
      } catch {
        // A process that died or stalled for a minute: the scrape time says it.
      }
      slowestScrapeMs = Math.max(slowestScrapeMs, performance.now() - startedAt);
      await sleep(250);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    return { longestBlockMs, slowestScrapeMs };
  };
}

async function peakRssMB(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kB = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
  return kB === undefined ? undefined : Number(kB) / 1024;
}

/** Runs one case: start, attack, check that another client is still served, measure, stop. */
async function runCase(name, { args = async () => [], attack }) {
  if (only && !only.some((wanted) => name.includes(wanted))) return;
  const directory = await mkdtemp(join(tmpdir(), 'olm-hostile-'));
  const context = { cleanups: [] };
  try {
    const olm = await startOlmUp(directory, await args(directory, context));
    if (!olm.started) {
      const code = await olm.exited;
      const lastLines = olm.output().trim().split('\n').slice(-2).join(' | ');
      print({ bench: 'olm-up-hostile', case: name, started: false, exit: code, outcome: lastLines.slice(0, 400) });
      return;
    }
    const stopSampling = sampleEventLoop(olm.metricsUrl);
    let outcome;
    try {
      outcome = await attack(olm, context);
    } catch (error) {
      outcome = `attack failed: ${error.message}`;
    }
    await sleep(2000);
    const alive = olm.child.exitCode === null && olm.child.signalCode === null;
    const served = alive && (await kube(olm.kubeConfig, 'GET', '/api/v1/namespaces/default')).status === 200;
    const peak = alive ? await peakRssMB(olm.child.pid) : undefined;
    const { longestBlockMs, slowestScrapeMs } = await stopSampling();
    print({ bench: 'olm-up-hostile', case: name, peakRssMB: round(peak), longestBlockMs: round(longestBlockMs), slowestScrapeMs: round(slowestScrapeMs), alive, served, outcome: String(outcome).slice(0, 400) });
    olm.child.kill('SIGTERM');
    await Promise.race([olm.exited, sleep(10_000)]);
    olm.child.kill('SIGKILL');
  } finally {
    for (const cleanup of context.cleanups.reverse()) await cleanup();
    await rm(directory, { recursive: true, force: true });
  }
}

/** YAML for one olm.bundle whose property expands to `2^levels * baseBytes` through nested aliases. */
function aliasedBundle(name, levels, baseBytes) {
  const lines = [`---`, `schema: olm.bundle`, `name: ${name}`, `package: bomb`, `image: registry.example.com/bomb:${name}`, `properties:`];
  lines.push(`  - type: olm.package`, `    value: {packageName: bomb, version: 0.0.${name.split('-v').at(-1)}}`);
  lines.push(`  - type: bench.base`, `    value: &l0 {text: "${'x'.repeat(baseBytes)}"}`);
  for (let level = 1; level <= levels; level++) lines.push(`  - type: bench.level${level}`, `    value: &l${level} [*l${level - 1}, *l${level - 1}]`);
  return lines.join('\n');
}

async function hostileCatalog(directory) {
  const catalog = join(directory, 'bomb-catalog');
  await mkdir(catalog);
  const bundles = Array.from({ length: 20 }, (_, index) => aliasedBundle(`bomb-v${index}`, quick ? 12 : 15, 900));
  const head = ['---', 'schema: olm.package', 'name: bomb', 'defaultChannel: stable', '---', 'schema: olm.channel', 'package: bomb', 'name: stable', 'entries:'];
  for (let index = 0; index < 20; index++) head.push(`  - name: bomb-v${index}`, ...(index > 0 ? [`    replaces: bomb-v${index - 1}`] : []));
  await writeFile(join(catalog, 'catalog.yaml'), `${head.join('\n')}\n${bundles.join('\n')}\n`);
  return catalog;
}

/** Item 2: add {} then copy the value into it twice, 40 times over. */
function copyBomb() {
  const operations = [{ op: 'add', path: '/data/v0', value: 'x'.repeat(100 * 1024) }];
  operations.push({ op: 'add', path: '/metadata/annotations', value: {} });
  let source = '/data/v0';
  for (let level = 1; level <= 40; level++) {
    operations.push({ op: 'add', path: `/metadata/annotations/l${level}`, value: {} });
    operations.push({ op: 'copy', from: source, path: `/metadata/annotations/l${level}/a` });
    operations.push({ op: 'copy', from: source, path: `/metadata/annotations/l${level}/b` });
    source = `/metadata/annotations/l${level}`;
  }
  return operations;
}

/** Item 3's YAML body: a ConfigMap whose 650 keys alias one 100 KB string (65 MB expanded). */
function aliasedConfigMapYaml(name) {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', `metadata: {name: ${name}, namespace: default}`, 'data:', `  k0: &big "${'y'.repeat(100 * 1024)}"`];
  for (let index = 1; index < 650; index++) lines.push(`  k${index}: *big`);
  return lines.join('\n');
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Item 7: a registry gRPC server whose ListBundles never ends. */
async function endlessRegistry() {
  // The gRPC libraries @olm/registry itself uses (apps/olm does not depend on them).
  const fromRegistry = createRequire(fileURLToPath(import.meta.resolve('@olm/registry')));
  const grpc = fromRegistry('@grpc/grpc-js');
  const protoLoader = fromRegistry('@grpc/proto-loader');
  const { registryProtoPaths, protoLoaderOptions } = await import('@olm/registry');
  const paths = registryProtoPaths();
  const definition = grpc.loadPackageDefinition(protoLoader.loadSync([paths.registry, paths.health], protoLoaderOptions));
  const service = definition.api.Registry.service;
  const bundle = (index) => ({ csvName: `endless.v0.0.${index}`, packageName: 'endless', channelName: 'stable', version: `0.0.${index}`, csvJson: '{}', object: [] });
  let streamed = 0;
  const unary = (_call, callback) => callback({ code: grpc.status.NOT_FOUND, details: 'not here' });
  const endless = (call) => {
    let index = 0;
    const push = () => {
      while (!call.cancelled && call.write(bundle(index++))) streamed++;
      if (!call.cancelled) call.once('drain', push);
    };
    push();
  };
  const handlers = Object.fromEntries(Object.entries(service).map(([name, method]) => [name, method.responseStream ? endless : unary]));
  handlers.ListPackages = (call) => {
    call.write({ name: 'endless' });
    call.end();
  };
  const server = new grpc.Server();
  server.addService(service, handlers);
  server.addService(definition.grpc.health.v1.Health.service, { Check: (_call, callback) => callback(null, { status: 'SERVING' }) });
  const port = await new Promise((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return { address: `127.0.0.1:${port}`, streamed: () => streamed, stop: () => new Promise((resolve) => server.tryShutdown(() => resolve())) };
}

function cpuSeconds(pid) {
  return readFile(`/proc/${pid}/stat`, 'utf8').then(
    (stat) => {
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    },
    () => undefined,
  );
}

/** Item 5: a real registry (Debian's docker-registry) holding an image-only bundle of 20 zero layers. */
async function zeroLayerBundle(directory, context) {
  let binary;
  try {
    execFileSync('docker-registry', ['--version'], { stdio: 'ignore' });
    binary = 'docker-registry';
  } catch {
    return undefined;
  }
  const port = await freePort();
  const config = join(directory, 'registry.yml');
  await writeFile(config, `version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: ${join(directory, 'registry')}\nhttp:\n  addr: 127.0.0.1:${port}\n`);
  const registry = spawn(binary, ['serve', config], { stdio: 'ignore' });
  context.cleanups.push(async () => registry.kill('SIGKILL'));
  const base = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if ((await fetch(`${base}/v2/`).catch(() => undefined))?.ok) break;
    if (attempt > 100) throw new Error('docker-registry did not start');
    await sleep(100);
  }
  const push = async (bytes) => {
    const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    const started = await fetch(`${base}/v2/bomb/blobs/uploads/`, { method: 'POST' });
    const location = new URL(started.headers.get('location'), base);
    location.searchParams.set('digest', digest);
    const put = await fetch(location, { method: 'PUT', body: bytes, headers: { 'content-type': 'application/octet-stream' } });
    if (put.status !== 201) throw new Error(`blob upload: ${put.status}`);
    return { digest, size: bytes.length };
  };
  const layerBytes = (quick ? 32 : 250) * 1024 * 1024;
  // A tar of one file of zeros: a 512-byte header, the content, padding and two zero blocks.
  const header = Buffer.alloc(512);
  header.write('manifests/zeros.yaml', 0);
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${layerBytes.toString(8).padStart(11, '0')}\0`, 124);
  header.write('00000000000\0', 136);
  header.write('        ', 148);
  header.write('0', 156);
  header.write('ustar\0', 257);
  header.write('00', 263);
  let checksum = 0;
  for (const byte of header) checksum += byte;
  header.write(`${checksum.toString(8).padStart(6, '0')}\0 `, 148);
  const layer = await push(gzipSync(Buffer.concat([header, Buffer.alloc(layerBytes), Buffer.alloc(1024)])));
  const configBlob = await push(Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', config: { Labels: { 'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1' } }, rootfs: { type: 'layers', diff_ids: [] } })));
  const manifest = JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...configBlob },
    layers: Array.from({ length: 20 }, () => ({ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', ...layer })),
  });
  const digest = `sha256:${createHash('sha256').update(manifest).digest('hex')}`;
  const put = await fetch(`${base}/v2/bomb/manifests/v1`, { method: 'PUT', body: manifest, headers: { 'content-type': 'application/vnd.oci.image.manifest.v1+json' } });
  if (put.status !== 201) throw new Error(`manifest upload: ${put.status} ${await put.text()}`);
  const catalog = join(directory, 'image-catalog');
  await mkdir(catalog);
  const yaml = [
    '---', 'schema: olm.package', 'name: zeros', 'defaultChannel: stable',
    '---', 'schema: olm.channel', 'package: zeros', 'name: stable', 'entries:', '  - name: zeros.v1.0.0',
    '---', 'schema: olm.bundle', 'name: zeros.v1.0.0', 'package: zeros', `image: 127.0.0.1:${port}/bomb@${digest}`,
    'properties:', '  - type: olm.package', '    value: {packageName: zeros, version: 1.0.0}',
  ];
  await writeFile(join(catalog, 'catalog.yaml'), `${yaml.join('\n')}\n`);
  return { catalog, registryHost: `127.0.0.1:${port}` };
}

/** Polls a Subscription until a condition of one of `types` appears; returns "Type: message". */
async function subscriptionCondition(kubeConfig, namespace, name, types, deadlineMs) {
  const deadline = performance.now() + deadlineMs;
  while (performance.now() < deadline) {
    const { status, body } = await kube(kubeConfig, 'GET', `/apis/operators.coreos.com/v1alpha1/namespaces/${namespace}/subscriptions/${name}`);
    if (status === 0) return `no answer: ${body}`;
    const conditions = status === 200 ? (JSON.parse(body).status?.conditions ?? []) : [];
    const found = conditions.find((condition) => types.includes(condition.type) && condition.status === 'True');
    if (found) return `${found.type}: ${found.message ?? found.reason}`;
    await sleep(1000);
  }
  return `none of ${types.join(', ')} within ${deadlineMs / 1000} s`;
}

async function subscribe(kubeConfig, namespace, packageName, source) {
  await kube(kubeConfig, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  await kube(kubeConfig, 'POST', `/apis/operators.coreos.com/v1/namespaces/${namespace}/operatorgroups`, { apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', metadata: { name: 'og', namespace } });
  await kube(kubeConfig, 'POST', `/apis/operators.coreos.com/v1alpha1/namespaces/${namespace}/subscriptions`, {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'Subscription',
    metadata: { name: packageName, namespace },
    spec: { name: packageName, channel: 'stable', source, sourceNamespace: 'olm' },
  });
}

await runCase('1 catalog-aliases-across-documents', { args: async (directory) => ['--catalog', await hostileCatalog(directory)], attack: async () => 'started: the catalog was served' });

await runCase('2 json-patch-copy-bomb', {
  attack: async ({ kubeConfig }) => {
    await kube(kubeConfig, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' }, data: {} });
    const { status, body } = await kube(kubeConfig, 'PATCH', '/api/v1/namespaces/default/configmaps/target', copyBomb(), 'application/json-patch+json');
    return `${status} ${body.slice(0, 300)}`;
  },
});

await runCase('3 stored-object-size', {
  args: async (directory) => ['--data-dir', join(directory, 'data')],
  attack: async ({ kubeConfig }) => {
    const answers = [];
    for (let index = 0; index < 8; index++) {
      const aliased = await kube(kubeConfig, 'POST', '/api/v1/namespaces/default/configmaps', aliasedConfigMapYaml(`aliased-${index}`), 'application/yaml');
      const plain = await kube(kubeConfig, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `plain-${index}` }, data: { big: 'z'.repeat(2 * 1024 * 1024) } });
      answers.push(`${aliased.status}/${plain.status}`);
    }
    return `aliased/plain answers: ${[...new Set(answers)].join(', ')}`;
  },
});

await runCase('5 bundle-image-layers', {
  args: async (directory, context) => {
    const image = await zeroLayerBundle(directory, context);
    if (!image) return [];
    context.image = image;
    return ['--catalog', image.catalog, '--insecure-registry', image.registryHost];
  },
  attack: async ({ kubeConfig, child }, context) => {
    if (!context.image) return 'skipped: docker-registry is not installed';
    await subscribe(kubeConfig, 'zeros', 'zeros', 'image-catalog');
    const outcome = await subscriptionCondition(kubeConfig, 'zeros', 'zeros', ['BundleUnpackFailed', 'ResolutionFailed'], quick ? 60_000 : 180_000);
    return child.exitCode === null ? outcome : `olm up exited (${child.exitCode ?? child.signalCode}) while unpacking`;
  },
});

await runCase('7 grpc-endless-stream', {
  attack: async ({ kubeConfig, child }, context) => {
    const registry = await endlessRegistry();
    context.cleanups.push(registry.stop);
    await kube(kubeConfig, 'POST', '/apis/operators.coreos.com/v1alpha1/namespaces/olm/catalogsources', {
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'CatalogSource',
      metadata: { name: 'endless', namespace: 'olm' },
      spec: { sourceType: 'grpc', address: registry.address },
    });
    await sleep(5000);
    const windowSeconds = quick ? 15 : 30;
    const before = await cpuSeconds(child.pid);
    await sleep(windowSeconds * 1000);
    const after = await cpuSeconds(child.pid);
    const { body } = await kube(kubeConfig, 'GET', '/apis/operators.coreos.com/v1alpha1/namespaces/olm/catalogsources/endless');
    const state = JSON.parse(body).status?.connectionState;
    const cpu = before === undefined || after === undefined ? 'unknown' : `${Math.round(((after - before) / windowSeconds) * 100)}% of a core`;
    return `CPU over ${windowSeconds} s: ${cpu}; ${registry.streamed()} bundles streamed; connectionState ${state?.lastObservedState ?? 'none'}: ${state?.message ?? ''}`;
  },
});

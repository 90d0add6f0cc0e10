// Unpacking item 5's aggregate bundle images (Hardening II) from a local registry with the default limits:
// one JSON line per case with the outcome, the peak RSS of this process and the longest event-loop block.
// Needs Debian's docker-registry ($DOCKER_REGISTRY overrides) and a build (`pnpm build`: imports ../dist).
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createGzip, gzipSync } from 'node:zlib';
import { BundleImageBudget, createOciRegistryClient, defaultBundleImageLimits, extractBundleFiles } from '../dist/index.js';

const MiB = 1024 * 1024;
const digestOf = (bytes) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** A ustar header of one regular file, and a whole archive of small files. */
function header(name, size) {
  const block = Buffer.alloc(512);
  const field = (offset, length, value) => block.write(value, offset, length, 'ascii');
  field(0, 100, name);
  field(100, 8, '0000644\0');
  field(108, 8, '0000000\0');
  field(116, 8, '0000000\0');
  field(124, 12, `${size.toString(8).padStart(11, '0')}\0`);
  field(136, 12, '00000000000\0');
  field(148, 8, '        ');
  field(156, 1, '0');
  field(257, 8, 'ustar\x0000');
  field(148, 8, `${block.reduce((sum, byte) => sum + byte, 0).toString(8).padStart(6, '0')}\0 `);
  return block;
}
function tar(files) {
  const parts = [];
  for (const [name, content] of files) {
    const data = Buffer.from(content);
    parts.push(header(name, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  return Buffer.concat([...parts, Buffer.alloc(1024)]);
}
async function gzipZeros(bytes) {
  const gzipper = createGzip({ level: 9 });
  const chunks = [];
  const collected = (async () => {
    for await (const chunk of gzipper) chunks.push(chunk);
  })();
  const block = Buffer.alloc(MiB);
  for (let left = bytes; left > 0; left -= block.length) if (!gzipper.write(left >= block.length ? block : block.subarray(0, left))) await new Promise((resolve) => gzipper.once('drain', resolve));
  gzipper.end();
  await collected;
  return Buffer.concat(chunks);
}

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

async function startRegistry(directory) {
  const port = await freePort();
  const config = join(directory, 'config.yml');
  writeFileSync(config, `version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: ${join(directory, 'storage')}\nhttp:\n  addr: 127.0.0.1:${port}\n`);
  const child = spawn(process.env.DOCKER_REGISTRY ?? 'docker-registry', ['serve', config], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    try {
      if ((await fetch(`${url}/v2/`)).ok) break;
    } catch {
      if (tries > 400) throw new Error(`docker-registry did not listen on ${url}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { host: `127.0.0.1:${port}`, url, stop: () => child.kill('SIGTERM') };
}

async function pushImage(registry, repository, layers) {
  const pushed = new Set();
  const push = async (bytes) => {
    const digest = digestOf(bytes);
    if (pushed.has(digest)) return digest;
    const started = await fetch(`${registry.url}/v2/${repository}/blobs/uploads/`, { method: 'POST' });
    const location = new URL(started.headers.get('location'), registry.url);
    location.searchParams.set('digest', digest);
    const put = await fetch(location, { method: 'PUT', headers: { 'Content-Type': 'application/octet-stream' }, body: bytes });
    if (put.status !== 201) throw new Error(`blob not pushed: HTTP ${put.status}`);
    pushed.add(digest);
    return digest;
  };
  const descriptors = [];
  for (const bytes of layers) descriptors.push({ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: await push(bytes), size: bytes.length });
  const config = Buffer.from('{"architecture":"amd64","os":"linux"}');
  const manifest = { schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: await push(config), size: config.length }, layers: descriptors };
  const put = await fetch(`${registry.url}/v2/${repository}/manifests/v1`, { method: 'PUT', headers: { 'Content-Type': manifest.mediaType }, body: JSON.stringify(manifest) });
  if (put.status !== 201) throw new Error(`manifest not pushed: HTTP ${put.status}`);
  return `${registry.host}/${repository}:v1`;
}

const csv = 'apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: good.v1.0.0\nspec: {}\n';
const csvLayer = gzipSync(tar([['manifests/csv.yaml', csv]]));

const directory = mkdtempSync(join(tmpdir(), 'olm-unpack-bench-'));
const registry = await startRegistry(directory);
try {
  const bigZeros = await gzipZeros(250 * MiB + 1024);
  const small = gzipSync(tar([['filler/x', 'x']]));
  const random = gzipSync(randomBytes(2 * MiB));
  const huge = `data:\n${'  k: vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\n'.repeat((8 * MiB) / 60)}`;
  const cases = {
    'good bundle': [csvLayer],
    '20 layers of 250 MiB zeros': Array.from({ length: 20 }, (_, index) => Buffer.concat([gzipSync(header(`filler/zeros-${index}`, 250 * MiB)), bigZeros])),
    '200 layers naming one blob': Array.from({ length: 200 }, () => small),
    '100 layers naming one 2 MiB blob': [csvLayer, ...Array.from({ length: 100 }, () => random)],
    'one 8 MiB manifest file': [csvLayer, gzipSync(tar([['manifests/huge.yaml', huge]]))],
    '2000 manifest files': [csvLayer, gzipSync(tar(Array.from({ length: 2000 }, (_, index) => [`manifests/cm-${index}.yaml`, 'kind: ConfigMap\n'])))],
  };
  const client = createOciRegistryClient();
  for (const [name, layers] of Object.entries(cases)) {
    const image = await pushImage(registry, `bench/case-${Object.keys(cases).indexOf(name)}`, layers);
    globalThis.gc?.();
    const rssBefore = process.memoryUsage.rss();
    let peakRss = rssBefore;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 5);
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const started = process.hrtime.bigint();
    let outcome;
    try {
      const budget = new BundleImageBudget(defaultBundleImageLimits, image);
      const pulled = await client.pullImage(image, { budget });
      const files = await extractBundleFiles(pulled.layers, image, budget);
      outcome = `unpacked ${files.size} files`;
    } catch (error) {
      outcome = `refused: ${String(error.message).split(': ').slice(1, 3).join(': ').slice(0, 160)}`;
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    delay.disable();
    clearInterval(sampler);
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    console.log(
      JSON.stringify({
        bench: `unpack ${name}`,
        layers: layers.length,
        compressedBytes: layers.reduce((sum, layer) => sum + layer.length, 0),
        ms: Math.round(ms),
        peakRssMiB: Math.round(peakRss / MiB),
        rssGrowthMiB: Math.round((peakRss - rssBefore) / MiB),
        longestEventLoopBlockMs: Math.round(delay.max / 1e6),
        outcome,
      }),
    );
  }
} finally {
  registry.stop();
  rmSync(directory, { recursive: true, force: true });
}

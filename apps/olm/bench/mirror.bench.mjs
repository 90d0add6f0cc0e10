// `olm catalog mirror` throughput and memory on the real certified catalog's metadata
// (../shared/catalogs/certified-operators-v4.18: 59 packages, 739 bundles). Two Debian docker-registry
// processes on loopback: the source holds the catalog image and, because the real bundle and operand
// images cannot be pulled offline, one synthesized bundle image per bundle of the packages mirrored (a random, incompressible
// layer of BENCH_LAYER_KIB, 64 KiB by default); the catalog is rebuilt to name them, with each bundle's
// relatedImages cut to its bundle image. The built CLI (`dist/cli.js`) mirrors it to the target as its
// own process; its peak RSS is its VmHWM. One JSON line per case:
//   selected-packages  --package of the first packages by name holding BENCH_BUNDLES (50) bundles: the
//                      catalog image (all 739 bundles' metadata), their bundle images, the rebuilt catalog
//   rerun              the same command again: everything is at the target (HEADs only)
//   catalog-metadata   (BENCH_CATALOG_ONLY=1) --package of the selected package with the fewest bundles:
//                      mostly the catalog's own cost (read, filter, rebuild, push)
// Needs a build (`pnpm -s turbo run build --filter=@olm/olm...`) and docker-registry (scripts/setup.sh).
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCatalogImage, buildOciImage, pushOciImage } from '@olm/bundle-authoring';
import { loadDeclarativeConfig, renderCatalog } from '@olm/registry';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const certified = fileURLToPath(new URL('../../../../shared/catalogs/certified-operators-v4.18', import.meta.url));
const layerBytes = Number(process.env.BENCH_LAYER_KIB ?? 64) * 1024;
const note = 'bundle images synthesized (one random layer each), relatedImages cut to the bundle image: the real images are not available offline';
const print = (line) => console.log(JSON.stringify(line));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

async function startRegistry(directory, cleanups) {
  const port = await freePort();
  const config = join(directory, 'registry.yml');
  await mkdir(directory, { recursive: true });
  await writeFile(config, `version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: ${join(directory, 'storage')}\nhttp:\n  addr: 127.0.0.1:${port}\n`);
  const child = spawn('docker-registry', ['serve', config], { stdio: 'ignore' });
  cleanups.push(() => child.kill('SIGTERM'));
  for (let attempt = 0; !(await fetch(`http://127.0.0.1:${port}/v2/`).catch(() => undefined))?.ok; attempt++) {
    if (attempt > 100) throw new Error('docker-registry did not start');
    await sleep(100);
  }
  return `127.0.0.1:${port}`;
}

/** Runs `items` through `work`, `width` at a time. */
async function pool(items, width, work) {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

/**
 * The certified catalog, whole, as a catalog image in `source`; for the packages `selected` (the first
 * ones by name holding at least BENCH_BUNDLES bundles, 50 by default) one synthesized bundle image per
 * bundle, which the catalog names instead of the real one (other packages keep their real references).
 */
async function prepareSource(source, directory) {
  const config = await loadDeclarativeConfig(certified);
  if (config.errors.length > 0) throw new Error(`the certified catalog does not load: ${config.errors[0].message}`);
  const wanted = Number(process.env.BENCH_BUNDLES ?? 50);
  const selected = [];
  for (const name of config.packages.map((item) => item.name).sort()) {
    if (config.bundles.filter((bundle) => selected.includes(bundle.package)).length >= wanted) break;
    selected.push(name);
  }
  const bundles = config.bundles.map((bundle) => {
    if (!selected.includes(bundle.package)) return bundle;
    const image = `${source}/certified/${bundle.package}:${bundle.name.replace(/[^\w.-]/g, '-').slice(0, 127)}`;
    return { ...bundle, image, relatedImages: [{ name: '', image }], synthesized: true };
  });
  const synthesized = bundles.filter((bundle) => bundle.synthesized);
  await pool(synthesized, 16, async (bundle) => {
    const built = await buildOciImage(new Map([['manifests/payload.bin', randomBytes(layerBytes)]]), { 'operators.operatorframework.io.bundle.package.v1': bundle.package });
    await pushOciImage(built, bundle.image);
  });
  const dir = join(directory, 'catalog');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'catalog.json'), renderCatalog({ ...config, bundles }, 'json'));
  const catalog = `${source}/certified/catalog:v4.18`;
  const image = await buildCatalogImage(dir);
  await pushOciImage(image, catalog);
  const smallest = [...selected].sort((a, b) => synthesized.filter((x) => x.package === a).length - synthesized.filter((x) => x.package === b).length)[0];
  return { catalog, selected, smallest, synthesized: synthesized.length, catalogBundles: bundles.length, catalogImageBytes: image.layer.length };
}

/** Runs the CLI, sampling its VmHWM until it exits; answers its stderr's summary and the peak. */
async function mirror(args) {
  const started = performance.now();
  const child = spawn(process.execPath, [cli, 'catalog', 'mirror', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  let peakKiB = 0;
  const sample = async () => {
    const status = await readFile(`/proc/${child.pid}/status`, 'utf8').catch(() => '');
    peakKiB = Math.max(peakKiB, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
  };
  const sampler = setInterval(sample, 25);
  const code = await exited;
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  const match = /(\d+)\/(\d+) images \((\d+) manifests\), (\d+) blobs copied \((\d+) bytes\), (\d+) blobs and (\d+) manifests already/.exec(stderr);
  if (code !== 0 || !match) throw new Error(`olm catalog mirror ${args.join(' ')} exited ${code}:\n${stderr}`);
  const [images, , manifests, blobsCopied, bytesCopied, blobsSkipped, manifestsSkipped] = match.slice(1).map(Number);
  return {
    images,
    manifests,
    blobsCopied,
    bytesCopied,
    blobsSkipped,
    manifestsSkipped,
    seconds: Math.round(seconds * 100) / 100,
    mbPerSecond: Math.round((bytesCopied / 1024 / 1024 / seconds) * 100) / 100,
    imagesPerSecond: Math.round((images / seconds) * 10) / 10,
    peakRssMB: Math.round(peakKiB / 1024),
  };
}

const catalog = (prepared) => prepared.catalog;
const cleanups = [];
try {
  try {
    execFileSync('docker-registry', ['--version'], { stdio: 'ignore' });
  } catch {
    print({ case: 'mirror', skipped: 'docker-registry is not installed (scripts/setup.sh installs it)' });
    process.exit(0);
  }
  const directory = await mkdtemp(join(tmpdir(), 'olm-mirror-bench-'));
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  const [source, target] = [await startRegistry(join(directory, 'source'), cleanups), await startRegistry(join(directory, 'target'), cleanups)];
  const setupStarted = performance.now();
  const prepared = await prepareSource(source, directory);
  const setupSeconds = Math.round((performance.now() - setupStarted) / 100) / 10;
  const packages = prepared.selected.join(',');
  const common = { catalogBundles: prepared.catalogBundles, catalogImageBytes: prepared.catalogImageBytes, layerBytes };
  print({ case: 'selected-packages', packages: prepared.selected.length, bundles: prepared.synthesized, setupSeconds, ...common, ...(await mirror([catalog(prepared), '--to', `${target}/mirror`, '--package', packages])), note });
  print({ case: 'rerun', ...common, ...(await mirror([catalog(prepared), '--to', `${target}/mirror`, '--package', packages])), note: 'everything already at the target: HEADs only' });
  if (process.env.BENCH_CATALOG_ONLY === '1') {
    print({ case: 'catalog-metadata', package: prepared.smallest, ...common, ...(await mirror([catalog(prepared), '--to', `${target}/one`, '--package', prepared.smallest])), note: `the whole certified catalog read, filtered to one package and rebuilt; ${note}` });
  }
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
}

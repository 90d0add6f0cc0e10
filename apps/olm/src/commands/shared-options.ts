import type { BundleImageLimits } from '@olm/bundle-puller';
import { Option, type Command } from 'commander';
import { parseMilliseconds, parsePort, parsePositiveInteger } from '../option-parsers.js';
import { logLevels, type LogLevel } from '../runtime/log-levels.js';

/**
 * `--kubeconfig`, `--context` (and `--in-cluster` for the long-running commands): how a command
 * reaches its cluster, with kubectl's precedence (see `loadKubeconfig`).
 */
export function addClusterOptions(command: Command, options: { readonly inCluster?: boolean } = {}): Command {
  command
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: the $KUBECONFIG files, else ~/.kube/config, else the pod\'s service account in a pod)')
    .option('--context <name>', 'kubeconfig context to use instead of the current one');
  if (options.inCluster) command.option('--in-cluster', "use the pod's service account (when running inside the cluster)");
  return command;
}

/** `-n, --namespace`, defaulting as kubectl does to the context's namespace, then to `fallback`. */
export function addNamespaceOption(command: Command, what: string, fallback: string): Command {
  return command.option('-n, --namespace <namespace>', `${what} (default: the kubeconfig context's namespace, else ${fallback})`);
}

/** The formats of `-o`: structured data instead of the human-readable text. */
export const outputFormats = ['json', 'yaml'] as const;
export type OutputFormat = (typeof outputFormats)[number];

/** `-o, --output json|yaml`; a value outside the choices is a usage error listing them. */
export function addOutputOption(command: Command, what = 'print structured data instead of text'): Command {
  return command.addOption(new Option('-o, --output <format>', what).choices([...outputFormats]));
}

/** `--metrics-port`, `--metrics-host`, `--log-level`: where `/metrics`, `/healthz` and `/readyz` answer, and how much is logged. */
export function addOperationsOptions(command: Command, defaults: { readonly logLevel: LogLevel } = { logLevel: 'info' }): Command {
  return command
    .option('--metrics-port <port>', 'port of /metrics, /healthz and /readyz', parsePort, 8080)
    .option('--metrics-host <host>', 'interface of /metrics, /healthz and /readyz', '0.0.0.0')
    .addOption(new Option('--log-level <level>', 'least severe log level written').choices([...logLevels]).default(defaults.logLevel));
}

/** `--resolution-budget`: how much constraint evaluation one resolution may spend (`@olm/resolver`'s `limits.evaluationUnits`). */
export function addResolutionOptions(command: Command): Command {
  return command.option(
    '--resolution-budget <units>',
    'units of constraint evaluation one namespace resolution may spend before it fails with OLM_RESOLVER_BUDGET_EXHAUSTED ' +
      '(about one per CEL expression node evaluated; default 50000000, 1-2 s of CEL)',
    parsePositiveInteger,
  );
}

/** Hidden `--exit-after-start` and `--run-for <ms>` (tests, smoke checks; see `untilStopped`). */
export function addStopOptions(command: Command): Command {
  return command
    .addOption(new Option('--exit-after-start', 'stop once everything started').hideHelp())
    .addOption(new Option('--run-for <ms>', 'stop after this many milliseconds').argParser(parseMilliseconds).hideHelp());
}

/** The bundle image limit flags (`@olm/bundle-puller`'s `bundleImageLimitFlags`), as commander names their values. */
const bundleImageLimitOptions = [
  ['maxLayers', '--bundle-max-layers <count>', 'bundleMaxLayers', 'most layers of one bundle image (default 128)'],
  ['maxCompressedBytes', '--bundle-max-compressed-bytes <bytes>', 'bundleMaxCompressedBytes', 'most bytes of layer blobs read for one bundle image, every layer counted (default 134217728, 128 MiB)'],
  ['maxUncompressedBytes', '--bundle-max-uncompressed-bytes <bytes>', 'bundleMaxUncompressedBytes', 'most bytes of one bundle image\'s layers once decompressed (default 268435456, 256 MiB)'],
  ['maxFileBytes', '--bundle-max-file-bytes <bytes>', 'bundleMaxFileBytes', 'largest file under manifests/ or metadata/ of a bundle image, refused before it is read (default 1048576, 1 MiB)'],
  ['maxManifestBytes', '--bundle-max-manifest-bytes <bytes>', 'bundleMaxManifestBytes', 'most bytes of manifests/ and metadata/ files kept from one bundle image (default 8388608, 8 MiB)'],
  ['maxFiles', '--bundle-max-files <count>', 'bundleMaxFiles', 'most entries under manifests/ and metadata/ of one bundle image (default 1000)'],
] as const;

export type BundleImageLimitFlagValues = { readonly [K in (typeof bundleImageLimitOptions)[number][2]]?: number };

/** `--bundle-max-layers`, `--bundle-max-compressed-bytes`, …: the bounds of one bundle image (`bundleImageLimits` of the bundle puller). */
export function addBundleImageLimitOptions(command: Command): Command {
  for (const [, flag, , description] of bundleImageLimitOptions) command.option(flag, `${description}; an image past it fails with BundleUnpackFailed`, parsePositiveInteger);
  return command;
}

/** The limits given with `addBundleImageLimitOptions`' flags; undefined when none was. */
export function bundleImageLimitsOf(values: BundleImageLimitFlagValues): Partial<BundleImageLimits> | undefined {
  const limits: Partial<Record<keyof BundleImageLimits, number>> = {};
  for (const [key, , property] of bundleImageLimitOptions) if (values[property] !== undefined) limits[key] = values[property];
  return Object.keys(limits).length > 0 ? limits : undefined;
}

/** `--signature-max-signatures`, …: the bounds of one image's signature verification (`signatureLimits` of the image signature verifier). */
const signatureLimitOptions = [
  ['maxSignatures', '--signature-max-signatures <count>', 'signatureMaxSignatures', 'most cosign signatures of one image tried against its catalog\'s signature policy (default 16)'],
  ['maxManifestBytes', '--signature-max-manifest-bytes <bytes>', 'signatureMaxManifestBytes', 'largest signature manifest (sha256-<hex>.sig) read (default 1048576, 1 MiB)'],
  ['maxPayloadBytes', '--signature-max-payload-bytes <bytes>', 'signatureMaxPayloadBytes', 'largest signature payload read (default 65536, 64 KiB)'],
] as const;

export type SignatureLimitFlagValues = { readonly [K in (typeof signatureLimitOptions)[number][2]]?: number };

export function addSignatureLimitOptions(command: Command): Command {
  for (const [, flag, , description] of signatureLimitOptions) command.option(flag, `${description}; an image past it is refused`, parsePositiveInteger);
  return command;
}

/** The limits given with `addSignatureLimitOptions`' flags; undefined when none was. */
export function signatureLimitsOf(values: SignatureLimitFlagValues): Partial<Record<(typeof signatureLimitOptions)[number][0], number>> | undefined {
  const limits: Partial<Record<(typeof signatureLimitOptions)[number][0], number>> = {};
  for (const [key, , property] of signatureLimitOptions) if (values[property] !== undefined) limits[key] = values[property];
  return Object.keys(limits).length > 0 ? limits : undefined;
}

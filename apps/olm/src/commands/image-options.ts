import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { OciImage } from '@olm/bundle-authoring';
import type { RegistryCredential } from '@olm/bundle-puller/registry';
import type { Command } from 'commander';
import { inputError, usageError } from '../cli-errors.js';
import { collect } from '../option-parsers.js';
import { createProgress, type Progress } from '../progress.js';

/** Where `olm bundle build` and `olm catalog build` put an image, and how they reach registries. */
export interface ImageOutputOptions extends RegistryOptions {
  readonly tag?: string;
  readonly ociLayout?: string;
}

export interface RegistryOptions {
  readonly insecureRegistry: string[];
  readonly registryConfig?: string;
}

/** `--insecure-registry` and `--registry-config`, for every command that talks to a registry. */
export function addRegistryOptions(command: Command): Command {
  return command
    .option('--insecure-registry <host>', 'a registry spoken to over plain http (host or host:port; repeatable); localhost ones always are', collect, [])
    .option('--registry-config <file>', 'a docker config.json with registry credentials (default $REGISTRY_AUTH_FILE, else ~/.docker/config.json)');
}

export function addImageOutputOptions(command: Command): Command {
  command
    .option('-t, --tag <ref>', 'push the image to a registry under this reference (registry/repository:tag)')
    .option('--oci-layout <dir>', 'write the image into this directory as an OCI image layout (tagged latest) instead of pushing it');
  return addRegistryOptions(command);
}

/** Refuses an image reference the registry client cannot split (exit 2), saying what is wrong with it. */
export async function checkImageReference(ref: string, flag: string): Promise<void> {
  const { parseImageReference } = await import('@olm/bundle-puller/registry');
  try {
    parseImageReference(ref);
  } catch (error) {
    throw usageError(`${flag} ${JSON.stringify(ref)} is not an image reference (${(error as Error).message.replace(/^invalid bundle image reference "[^"]*": /, '').replace(/; fix the bundle's image in the catalog$/, '')}); write registry/repository:tag, e.g. localhost:5000/acme/bundle:v1.0.0`);
  }
}

/** The credentials of the registry config (docker's `config.json` format) that apply to `image`. */
export async function registryCredentials(options: RegistryOptions, image: string): Promise<RegistryCredential[]> {
  return (await registryCredentialsLookup(options))(image);
}

/** Reads the registry config once; answers the credentials that apply to each image or repository asked about. */
export async function registryCredentialsLookup(options: RegistryOptions): Promise<(image: string) => RegistryCredential[]> {
  const explicit = options.registryConfig ?? process.env.REGISTRY_AUTH_FILE;
  const file = explicit ?? join(homedir(), '.docker', 'config.json');
  if (!explicit && !existsSync(file)) return () => [];
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw inputError(`cannot read the registry config ${file}: ${(error as Error).message}; pass an existing docker config.json with --registry-config`, error);
  }
  const { keyringFromSecret, credentialsForImage, parseImageReference } = await import('@olm/bundle-puller/registry');
  const { entries, problem } = keyringFromSecret({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from(text).toString('base64') } });
  if (problem) throw inputError(`the registry config ${file} cannot be read: ${problem}`);
  return (image) => credentialsForImage(entries, parseImageReference(image)).map((credential) => ({ ...credential, source: `registry config ${file}` }));
}

/** A size for a progress line, in whole KiB or MiB, so that the line changes at most once per KiB or MiB. */
export const sizeText = (bytes: number) => (bytes < 1024 * 1024 ? `${Math.floor(bytes / 1024)} KiB` : `${Math.floor(bytes / (1024 * 1024))} MiB`);

/** Runs a long copy with a progress display on stderr, ended with `done` or, when it throws, `failed`. */
export async function withProgress<T>(done: string, failed: string, run: (progress: Progress) => Promise<T>): Promise<T> {
  const progress = createProgress();
  try {
    const result = await run(progress);
    progress.done(done);
    return result;
  } catch (error) {
    progress.done(failed);
    throw error;
  }
}

/** Pushes the image to `--tag` (with a progress line per blob) or writes it to `--oci-layout`; prints the digest. */
export async function outputImage(image: OciImage, options: ImageOutputOptions, what: string): Promise<void> {
  if ((options.tag === undefined) === (options.ociLayout === undefined)) {
    throw usageError(`say where the ${what} image goes: --tag <ref> to push it, or --oci-layout <dir> to write it`);
  }
  const size = image.layer.length + image.config.length + image.manifest.length;
  if (options.ociLayout !== undefined) {
    const { writeOciLayout } = await import('@olm/bundle-authoring');
    try {
      await writeOciLayout(options.ociLayout, image, 'latest');
    } catch (error) {
      throw inputError(`cannot write the OCI layout ${options.ociLayout}: ${(error as Error).message}; pass a directory that can be written (it is created when missing)`, error);
    }
    process.stdout.write(`${image.manifestDigest}\n`);
    process.stderr.write(`wrote the ${what} image (${size} bytes) to the OCI layout ${options.ociLayout} (tag latest)\n`);
    return;
  }
  const tag = options.tag!;
  await checkImageReference(tag, '--tag');
  const { pushOciImage } = await import('@olm/bundle-authoring');
  const credentials = await registryCredentials(options, tag);
  const { digest } = await withProgress(`pushed the ${what} image ${tag} (${size} bytes)`, `pushing ${tag} failed`, (progress) =>
    pushOciImage(image, tag, {
      insecureRegistries: options.insecureRegistry,
      credentials,
      onProgress: (step) =>
        progress.update(`pushing ${tag}: ${step.done + 1}/${step.total} ${step.what.slice(0, 19)} ${step.skipped ? 'already there' : `${sizeText(step.sent)} of ${sizeText(step.bytes)}`}`),
    }),
  );
  process.stdout.write(`${tag.split('@')[0]}@${digest}\n`);
}

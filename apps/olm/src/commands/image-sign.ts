import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { inputError } from '../cli-errors.js';
import { commandGroup } from './command-group.js';
import { addRegistryOptions, checkImageReference, registryCredentials, type RegistryOptions } from './image-options.js';

/** `olm image sign REF --key KEY.pem`: a cosign-compatible signature of the image's digest, stored beside it in its registry. */
export function registerImageSignCommand(program: Command): void {
  const command = commandGroup(program, 'image', 'sign catalog and bundle images')
    .command('sign')
    .description(
      "sign an image as `cosign sign --key` does (the simple-signing payload of its digest, stored as the sha256-<hex>.sig tag of its repository; its signatures so far are kept), so that catalogs with an olm.operatorframework.io/signature-policy accept it; no transparency log entry is made",
    )
    .argument('<ref>', 'the image (registry/repository:tag or @sha256:…); a tag is resolved to its digest first')
    .requiredOption('--key <file>', 'the private key, unencrypted PEM (ECDSA P-256, Ed25519 or RSA), e.g. from `openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256`; its public key goes into the policy ConfigMap as <name>.pub')
    .addHelpText(
      'after',
      '\nExample:\n  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out acme.key\n  openssl pkey -in acme.key -pubout -out acme.pub\n  olm image sign localhost:5000/acme/thing-bundle:v1.0.0 --key acme.key\n  kubectl -n olm create configmap acme-keys --from-file=acme.pub\n  kubectl -n olm annotate catalogsource acme olm.operatorframework.io/signature-policy=acme-keys\n',
    );
  addRegistryOptions(command).action(async (ref: string, options: RegistryOptions & { key: string }) => {
    await checkImageReference(ref, '<ref>');
    let keyText: string;
    try {
      keyText = await readFile(options.key, 'utf8');
    } catch (error) {
      throw inputError(`cannot read the signing key ${options.key}: ${(error as Error).message}; pass the private key file with --key`, error);
    }
    const [{ createOciArtifactReader, createOciRegistryPusher }, { keySigner, signImage }] = await Promise.all([import('@olm/bundle-puller/registry'), import('@olm/image-signatures')]);
    let sign;
    try {
      sign = keySigner(keyText);
    } catch (error) {
      throw inputError(`--key ${options.key}: ${(error as Error).message}`, error);
    }
    const registry = { userAgent: 'olm', ...(options.insecureRegistry.length > 0 ? { insecureRegistries: options.insecureRegistry } : {}) };
    const signed = await signImage({
      image: ref,
      sign,
      reader: createOciArtifactReader(registry),
      pusher: createOciRegistryPusher(registry),
      credentials: await registryCredentials(options, ref),
    });
    process.stdout.write(`signed ${ref} (digest ${signed.digest}): ${signed.signatures}\n`);
  });
}

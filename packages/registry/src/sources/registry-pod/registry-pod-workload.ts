import { CatalogSourceReasons, RegistryServicePort, RegistryServiceProtocol, type CatalogSourceStatus } from '@olm/api';
import { describeError, type CatalogSourceProblem, type CatalogSourceWorkload, type CatalogSourceWorkloadContext } from '@olm/core';
import { formatTime } from '@olm/go-format';
import { asString, catalogSourceOf, type CatalogSourceObject } from '../catalog-source-of.js';
import { createCatalogImageVerification } from './catalog-image-signature.js';
import { defaultOpmImage, defaultUtilImage, defaultWorkloadUserId, registryPort, registryServiceName, type RegistryPodSettings } from './registry-pod.js';
import { registryPoll } from './registry-poll.js';
import { ensureRegistryServer, removeRegistryServer } from './registry-server.js';
import { podAddressOfService, type RegistryServiceRouting } from './service-address.js';

export interface RegistryPodOptions {
  /** The image serving catalogs extracted by `grpcPodConfig.extractContent` (upstream's `--opmImage`). Default `quay.io/operator-framework/opm:latest`. */
  readonly opmImage?: string;
  /** The image holding `copy-content` for `extractContent` Pods (upstream's `--util-image`). Default `quay.io/operator-framework/olm:latest`. */
  readonly utilImage?: string;
  /** `runAsUser` of registry Pods with the restricted security context (upstream's `--set-workload-user-id`). Default 1001; 0 leaves it unset. */
  readonly workloadUserId?: number;
  /**
   * How an image catalog's registry Service is reached: `dns` (default), its cluster DNS name
   * `<service>.<namespace>.svc:50051`, as upstream's in-cluster controller does; `pod-ip`, a ready Pod the
   * Service selects, found through the API server (a controller outside the cluster network that can reach
   * Pod IPs, e.g. on the embedded API server). Status shows the DNS name either way.
   */
  readonly serviceRouting?: RegistryServiceRouting;
}

type StatusChanges = { -readonly [Field in keyof CatalogSourceStatus]?: CatalogSourceStatus[Field] };

/**
 * An image catalog (`grpc` with `spec.image`) served as upstream serves it: a registry Pod and a Service
 * the CatalogSource owns (`status.registryService`), the Pod recreated when a registry poll is due
 * (`spec.updateStrategy.registryPoll`) and run on the verified digest when a signature policy applies;
 * both removed when the catalog no longer has an image or changed type.
 */
export function createRegistryPodWorkload(options: RegistryPodOptions = {}): Required<CatalogSourceWorkload> {
  const pod: Omit<RegistryPodSettings, 'defaultSecurityContextConfig'> = {
    opmImage: options.opmImage ?? defaultOpmImage,
    utilImage: options.utilImage ?? defaultUtilImage,
    workloadUserId: options.workloadUserId ?? defaultWorkloadUserId,
  };
  const routing = options.serviceRouting ?? 'dns';
  const images = createCatalogImageVerification();
  return {
    async ensure(context) {
      const source = catalogSourceOf(context.source);
      const spec = source.spec ?? {};
      const previous = source.status ?? {};
      const status: StatusChanges = {};
      let connectSpec: Readonly<Record<string, unknown>> = { ...spec };
      if (!asString(spec.address) && asString(spec.image)) {
        const serviceName = registryServiceName(source.metadata?.name ?? '');
        const namespace = source.metadata?.namespace ?? '';
        status.registryService = {
          protocol: RegistryServiceProtocol,
          serviceName,
          serviceNamespace: namespace,
          port: RegistryServicePort,
          createdAt: previous.registryService?.createdAt ?? formatTime(context.now),
        };
        connectSpec = { ...spec, address: `${serviceName}.${namespace}.svc:${RegistryServicePort}` };
      }
      const poll = pollDue(context, source, status);
      let problem = poll.problem;
      problem = (await serveImage(context, source, status, poll.due)) ?? problem;
      const registryService = 'registryService' in status ? status.registryService : previous.registryService;
      const address = registryService ? asString(connectSpec.address) || undefined : undefined;
      const serviceName = registryService?.serviceName ?? '';
      return {
        connectSpec,
        status,
        ...(problem ? { problem } : {}),
        ...(address ? { address } : {}),
        ...(address && routing === 'pod-ip' ? { dial: () => podAddressOfService(context.client, source.metadata?.namespace ?? '', serviceName, registryPort) } : {}),
        ...(poll.intervalMs !== undefined ? { recheckAfterMs: poll.intervalMs } : {}),
      };
    },

    async release(context) {
      const source = catalogSourceOf(context.source);
      if (!source.status?.registryService) return [];
      await removeRegistry(context, source);
      return ['registryService'];
    },

    forget: (key) => images.forget(key),

    async locate(object, client) {
      const source = catalogSourceOf(object);
      const service = source.status?.registryService;
      const address =
        source.spec?.address ||
        source.status?.connectionState?.address ||
        (service?.serviceName && service.serviceNamespace && service.port ? `${service.serviceName}.${service.serviceNamespace}.svc:${service.port}` : undefined);
      if (!address) return undefined;
      if (routing !== 'pod-ip' || source.spec?.address || !service?.serviceName) return { ...source.spec, address };
      const podAddress = await podAddressOfService(client, service.serviceNamespace ?? '', service.serviceName, registryPort);
      return podAddress ? { ...source.spec, address: podAddress } : undefined;
    },
  };

  /** An image catalog's registry Pod and Service (the Pod recreated when a poll is due); removed when the catalog no longer has an image. */
  async function serveImage(context: CatalogSourceWorkloadContext, source: CatalogSourceObject, status: StatusChanges, due: boolean): Promise<CatalogSourceProblem | undefined> {
    const image = asString(source.spec?.image);
    const previous = source.status ?? {};
    if (!image) {
      if (previous.registryService) {
        await removeRegistry(context, source);
        status.registryService = undefined;
      }
      return undefined;
    }
    const verified = await images.sourceFor(source, due, context.imageSignatureVerifier);
    if ('refused' in verified) {
      // nothing of the image is served, nor read from what was served before
      await removeRegistryServer(context.client, keyOf(source));
      await context.stopServing();
      return verified.refused;
    }
    try {
      const changes = await ensureRegistryServer(context.client, verified.source, { replacePod: due && previous.latestImageRegistryPoll !== undefined, pod });
      if (changes.length > 0) context.logger.info('registry server updated', { catalogSource: catalogSourceName(source), changes });
      return undefined;
    } catch (error) {
      return { reason: CatalogSourceReasons.RegistryServerError, message: `cannot create the registry Pod and Service for image ${image}: ${describeError(error)}` };
    }
  }
}

/** `registryPoll.interval` (grpc with image only): `InvalidIntervalError`, and whether a poll is due (the content is then taken again). */
function pollDue(context: CatalogSourceWorkloadContext, source: CatalogSourceObject, status: StatusChanges): { intervalMs?: number; due: boolean; problem?: CatalogSourceProblem } {
  const poll = registryPoll({ ...source.spec, sourceType: 'grpc' });
  const problem = poll.invalidIntervalMessage ? { reason: CatalogSourceReasons.IntervalInvalidError, message: poll.invalidIntervalMessage } : undefined;
  if (poll.intervalMs === undefined) return { due: false, ...(problem ? { problem } : {}) };
  const latest = source.status?.latestImageRegistryPoll;
  const last = latest ? Date.parse(latest) : undefined;
  if (last !== undefined && context.now.getTime() - last < poll.intervalMs) return { intervalMs: poll.intervalMs, due: false, ...(problem ? { problem } : {}) };
  context.contentChanged();
  status.latestImageRegistryPoll = formatTime(context.now);
  return { intervalMs: poll.intervalMs, due: true, ...(problem ? { problem } : {}) };
}

async function removeRegistry(context: CatalogSourceWorkloadContext, source: CatalogSourceObject): Promise<void> {
  await removeRegistryServer(context.client, keyOf(source)).catch((error: unknown) =>
    context.logger.warn('cannot remove the registry Pod and Service', { catalogSource: catalogSourceName(source), error: describeError(error) }),
  );
}

const keyOf = (source: CatalogSourceObject) => ({ namespace: source.metadata?.namespace ?? '', name: source.metadata?.name ?? '' });
const catalogSourceName = (source: CatalogSourceObject) => `${source.metadata?.namespace ?? ''}/${source.metadata?.name ?? ''}`;

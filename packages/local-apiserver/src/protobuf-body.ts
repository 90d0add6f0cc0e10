import { builtinProtobufKinds, builtinProtobufMessage, builtinProtobufSchemas } from './builtin-protobuf-schemas.js';
import { badRequest, unsupportedMediaType } from './errors.js';
import type { JsonObject } from './kube-object.js';
import { decodeProtobufMessage, ProtobufDecodeError } from './protobuf-decode.js';
import { ProtobufReader, ProtobufWireError, WireType } from './protobuf-wire.js';

/**
 * Request bodies in Kubernetes protobuf (`application/vnd.kubernetes.protobuf`), which kubectl's
 * generators (`kubectl create namespace|configmap|secret|deployment|…`) and typed Go clients send:
 * the 4 bytes `k8s\0`, then a runtime.Unknown envelope whose `raw` holds the object. The result is
 * the object a JSON client would have sent, so the normal write path takes it from there.
 */
export const kubernetesProtobufMediaType = 'application/vnd.kubernetes.protobuf';

const magic = Buffer.from('k8s\0', 'latin1');

interface Envelope {
  apiVersion: string;
  kind: string;
  raw: ProtobufReader;
  contentEncoding: string;
  contentType: string;
}

const utf8 = new TextDecoder('utf-8');

/** Decodes a protobuf body; fields this server does not know are dropped with a line in `warnings`. */
export function decodeKubernetesProtobuf(body: Uint8Array, warnings: string[] = []): JsonObject {
  if (body.length < magic.length || !magic.equals(body.subarray(0, magic.length))) {
    throw badRequest(`the protobuf body does not start with the 4-byte prefix "k8s\\x00" (${JSON.stringify(Buffer.from(body.subarray(0, 4)).toString('latin1'))}); send Kubernetes protobuf or use Content-Type: application/json`);
  }
  const envelope = readEnvelope(body);
  const { apiVersion, kind } = envelope;
  if (apiVersion === '' || kind === '') throw badRequest('the protobuf envelope (runtime.Unknown) has no apiVersion or kind; cannot tell which object it holds');
  if (envelope.contentEncoding !== '') throw unsupportedMediaType(`the protobuf envelope's content encoding "${envelope.contentEncoding}" is not supported; send the object unencoded`);
  if (envelope.contentType !== '' && envelope.contentType !== kubernetesProtobufMediaType) {
    throw unsupportedMediaType(`the protobuf envelope holds "${envelope.contentType}"; send that content directly with its own Content-Type instead`);
  }
  const messageName = builtinProtobufMessage(apiVersion, kind);
  if (messageName === undefined) {
    throw unsupportedMediaType(
      `${kind} (${apiVersion}) cannot be sent as protobuf to this server, which decodes protobuf only for ${builtinProtobufKinds().join(', ')}; ` +
        'send it as JSON instead (Content-Type: application/json; with kubectl: render it with --dry-run=client -o yaml and pipe that to kubectl apply -f -)',
    );
  }
  try {
    const object = decodeProtobufMessage(envelope.raw, messageName, builtinProtobufSchemas, { warnings });
    return { apiVersion, kind, ...object };
  } catch (error) {
    if (error instanceof ProtobufDecodeError) throw badRequest(`error decoding protobuf ${kind} (${apiVersion}): ${error.message}`);
    throw error;
  }
}

/** runtime.Unknown: typeMeta (apiVersion 1, kind 2) = 1, raw = 2, contentEncoding = 3, contentType = 4. */
function readEnvelope(body: Uint8Array): Envelope {
  const envelope: Envelope = { apiVersion: '', kind: '', raw: new ProtobufReader(new Uint8Array(0)), contentEncoding: '', contentType: '' };
  const text = (reader: ProtobufReader): string => utf8.decode(reader.lengthDelimited().rest());
  try {
    const reader = new ProtobufReader(body, magic.length);
    while (!reader.isDone()) {
      const tag = reader.tag();
      if (tag.wireType !== WireType.lengthDelimited || tag.field > 4) {
        reader.skip(tag.wireType);
        continue;
      }
      if (tag.field === 1) {
        const typeMeta = reader.lengthDelimited();
        while (!typeMeta.isDone()) {
          const inner = typeMeta.tag();
          if (inner.wireType !== WireType.lengthDelimited) typeMeta.skip(inner.wireType);
          else if (inner.field === 1) envelope.apiVersion = text(typeMeta);
          else if (inner.field === 2) envelope.kind = text(typeMeta);
          else typeMeta.skip(inner.wireType);
        }
      } else if (tag.field === 2) envelope.raw = reader.lengthDelimited();
      else if (tag.field === 3) envelope.contentEncoding = text(reader);
      else envelope.contentType = text(reader);
    }
  } catch (error) {
    if (error instanceof ProtobufWireError) throw badRequest(`error decoding the protobuf envelope (runtime.Unknown): ${error.message}`);
    throw error;
  }
  return envelope;
}

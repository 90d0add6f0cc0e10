import { stringify } from 'yaml';
import { isJsonObject, type JsonObject } from './kube-object.js';
import { protobufMessage as message } from './protobuf-wire.js';

/**
 * `/openapi/v2` in protobuf (gnostic `openapi.v2.Document`), which kubectl up to 1.26 downloads before
 * `apply` and `explain`. Only what kubectl reads is encoded: definitions with types, descriptions,
 * properties, items, required, enums and `x-kubernetes-*` extensions.
 */

function anyYaml(value: unknown): Buffer {
  return message((writer) => writer.string(2, stringify(value).trimEnd()));
}

/** v2 cannot express these; kube-apiserver drops them when publishing CRD schemas as v2. */
function encodeSchema(schema: JsonObject): Buffer {
  return message((writer) => {
    const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
    const intOrString = schema['x-kubernetes-int-or-string'] === true;
    writer.string(2, typeof schema['format'] === 'string' ? schema['format'] : undefined);
    writer.string(4, typeof schema['description'] === 'string' ? schema['description'] : undefined);
    if (Array.isArray(schema['required'])) for (const name of schema['required']) if (typeof name === 'string') writer.string(19, name);
    if (Array.isArray(schema['enum'])) for (const value of schema['enum']) writer.bytes(20, anyYaml(value));
    const additional = schema['additionalProperties'];
    if (isJsonObject(additional) && !preserve) writer.bytes(21, message((item) => item.bytes(1, encodeSchema(additional))));
    const type = schema['type'];
    if (typeof type === 'string' && !intOrString && schema['nullable'] !== true) writer.bytes(22, message((item) => item.string(1, type)));
    const items = schema['items'];
    if (isJsonObject(items)) writer.bytes(23, message((item) => item.bytes(1, encodeSchema(items))));
    const properties = schema['properties'];
    if (isJsonObject(properties) && !preserve) {
      writer.bytes(
        25,
        message((list) => {
          for (const [name, value] of Object.entries(properties)) {
            if (isJsonObject(value)) list.bytes(1, message((named) => named.string(1, name).bytes(2, encodeSchema(value))));
          }
        }),
      );
    }
    for (const [name, value] of Object.entries(schema)) {
      if (name.startsWith('x-kubernetes-')) writer.bytes(31, message((named) => named.string(1, name).bytes(2, anyYaml(value))));
    }
  });
}

export function encodeOpenApiV2(definitions: Record<string, JsonObject>, version: string): Buffer {
  return message((document) => {
    document.string(1, '2.0');
    document.bytes(2, message((info) => info.string(1, 'Kubernetes').string(2, version)));
    document.bytes(8, Buffer.alloc(0));
    document.bytes(
      9,
      message((list) => {
        for (const [name, schema] of Object.entries(definitions)) list.bytes(1, message((named) => named.string(1, name).bytes(2, encodeSchema(schema))));
      }),
    );
  });
}

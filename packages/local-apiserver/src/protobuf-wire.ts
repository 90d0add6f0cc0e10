/**
 * Protobuf wire-format primitives: a reader for request bodies (Kubernetes protobuf objects) and a
 * writer for the `/openapi/v2` protobuf document. No schema here; see `protobuf-decode.ts`.
 */
export const WireType = { varint: 0, fixed64: 1, lengthDelimited: 2, startGroup: 3, endGroup: 4, fixed32: 5 } as const;

/** Malformed wire data; `offset` is the byte of the whole body where reading failed. */
export class ProtobufWireError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at byte ${offset}`);
    this.name = 'ProtobufWireError';
  }
}

export interface FieldTag {
  readonly field: number;
  readonly wireType: number;
  /** Where the tag starts, for error messages. */
  readonly offset: number;
}

/** Reads one message: the bytes `[start, end)` of a shared buffer, so offsets stay absolute. */
export class ProtobufReader {
  private position: number;

  constructor(
    private readonly buffer: Uint8Array,
    start = 0,
    private readonly end = buffer.length,
  ) {
    this.position = start;
  }

  get offset(): number {
    return this.position;
  }

  isDone(): boolean {
    return this.position >= this.end;
  }

  /** A varint as a 64-bit pattern; callers pick the signed or unsigned view. */
  varint(): bigint {
    const start = this.position;
    let result = 0n;
    for (let index = 0; index < 10; index++) {
      if (this.position >= this.end) throw new ProtobufWireError('truncated varint', start);
      const byte = this.buffer[this.position++] ?? 0;
      result |= BigInt(byte & 0x7f) << BigInt(7 * index);
      if ((byte & 0x80) === 0) return BigInt.asUintN(64, result);
    }
    throw new ProtobufWireError('varint longer than 10 bytes', start);
  }

  /** A varint used as a length or tag: must fit a safe JavaScript integer. */
  private smallVarint(what: string): number {
    const start = this.position;
    const value = this.varint();
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new ProtobufWireError(`${what} ${value} is too large`, start);
    return Number(value);
  }

  tag(): FieldTag {
    const offset = this.position;
    const key = this.smallVarint('field key');
    const field = Math.floor(key / 8);
    const wireType = key % 8;
    if (field === 0) throw new ProtobufWireError('invalid field number 0', offset);
    if (wireType === WireType.startGroup || wireType === WireType.endGroup) throw new ProtobufWireError(`field ${field} uses protobuf groups, which Kubernetes never sends`, offset);
    if (wireType > WireType.fixed32) throw new ProtobufWireError(`field ${field} has invalid wire type ${wireType}`, offset);
    return { field, wireType, offset };
  }

  /** The payload of a length-delimited field, as a reader over the same buffer. */
  lengthDelimited(): ProtobufReader {
    const start = this.position;
    const length = this.smallVarint('length');
    if (length > this.end - this.position) throw new ProtobufWireError(`truncated: ${length} bytes announced, ${this.end - this.position} left`, start);
    const reader = new ProtobufReader(this.buffer, this.position, this.position + length);
    this.position += length;
    return reader;
  }

  /** The remaining bytes of this reader (a copy-free view). */
  rest(): Uint8Array {
    const bytes = this.buffer.subarray(this.position, this.end);
    this.position = this.end;
    return bytes;
  }

  /** Skips a field's value; returns whether it carried anything (a non-zero varint or a non-empty payload). */
  skip(wireType: number): boolean {
    const start = this.position;
    switch (wireType) {
      case WireType.varint:
        return this.varint() !== 0n;
      case WireType.lengthDelimited:
        return !this.lengthDelimited().isDone();
      case WireType.fixed64:
      case WireType.fixed32: {
        const size = wireType === WireType.fixed64 ? 8 : 4;
        if (size > this.end - this.position) throw new ProtobufWireError(`truncated fixed-size value`, start);
        const bytes = this.buffer.subarray(this.position, this.position + size);
        this.position += size;
        return bytes.some((byte) => byte !== 0);
      }
      default:
        throw new ProtobufWireError(`cannot skip wire type ${wireType}`, start);
    }
  }
}

/** Writes a message; `string` and `bool` omit empty values, as proto3 does. */
export class ProtobufWriter {
  private readonly chunks: Buffer[] = [];

  private varint(value: number): void {
    const bytes: number[] = [];
    let remaining = value;
    while (remaining > 0x7f) {
      bytes.push((remaining & 0x7f) | 0x80);
      remaining = Math.floor(remaining / 128);
    }
    bytes.push(remaining);
    this.chunks.push(Buffer.from(bytes));
  }

  private tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  string(field: number, value: string | undefined): this {
    if (value === undefined || value === '') return this;
    return this.bytes(field, Buffer.from(value, 'utf8'));
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, WireType.lengthDelimited);
    this.varint(value.length);
    this.chunks.push(Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    return this;
  }

  bool(field: number, value: boolean | undefined): this {
    if (value !== true) return this;
    return this.uint(field, 1);
  }

  /** A non-negative integer as a varint, written even when zero. */
  uint(field: number, value: number): this {
    this.tag(field, WireType.varint);
    this.varint(value);
    return this;
  }

  finish(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** Builds a message with a fresh writer. */
export function protobufMessage(build: (writer: ProtobufWriter) => void): Buffer {
  const writer = new ProtobufWriter();
  build(writer);
  return writer.finish();
}

import { describe, expect, it } from 'vitest';
import { ProtobufReader, ProtobufWireError, ProtobufWriter, protobufMessage } from './protobuf-wire.js';

const bytes = (...values: number[]): Uint8Array => new Uint8Array(values);

describe('ProtobufReader', () => {
  it('reads one-byte, multi-byte and ten-byte (negative) varints', () => {
    const reader = new ProtobufReader(bytes(0x00, 0x96, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01));
    expect(reader.varint()).toBe(0n);
    expect(reader.varint()).toBe(150n);
    expect(BigInt.asIntN(64, reader.varint())).toBe(-1n);
    expect(reader.isDone()).toBe(true);
  });

  it('splits a key into field number and wire type', () => {
    // 0x8a 0x01 = 138 = field 17, wire type 2.
    expect(new ProtobufReader(bytes(0x8a, 0x01)).tag()).toEqual({ field: 17, wireType: 2, offset: 0 });
  });

  it('gives a length-delimited payload as a reader with absolute offsets', () => {
    const reader = new ProtobufReader(bytes(0x0a, 0x03, 0x08, 0x96, 0x01, 0x10, 0x01));
    reader.tag();
    const inner = reader.lengthDelimited();
    expect(inner.offset).toBe(2);
    expect(inner.tag()).toEqual({ field: 1, wireType: 0, offset: 2 });
    expect(inner.varint()).toBe(150n);
    expect(inner.isDone()).toBe(true);
    expect(reader.tag()).toEqual({ field: 2, wireType: 0, offset: 5 });
  });

  it('skips every wire type and says whether the value carried anything', () => {
    const reader = new ProtobufReader(bytes(0x00, 0x05, 0x00, 0x02, 0x61, 0x62, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    expect(reader.skip(0)).toBe(false);
    expect(reader.skip(0)).toBe(true);
    expect(reader.skip(2)).toBe(false);
    expect(reader.skip(2)).toBe(true);
    expect(reader.skip(1)).toBe(true);
    expect(reader.skip(5)).toBe(false);
    expect(reader.isDone()).toBe(true);
  });

  it.each([
    ['a varint cut short', bytes(0x96), (reader: ProtobufReader) => reader.varint(), 'truncated varint at byte 0'],
    ['an 11-byte varint', bytes(...new Array<number>(11).fill(0xff)), (reader: ProtobufReader) => reader.varint(), 'varint longer than 10 bytes at byte 0'],
    ['a payload longer than the rest', bytes(0x05, 0x61), (reader: ProtobufReader) => reader.lengthDelimited(), 'truncated: 5 bytes announced, 1 left at byte 0'],
    ['field number 0', bytes(0x02), (reader: ProtobufReader) => reader.tag(), 'invalid field number 0 at byte 0'],
    ['a group', bytes(0x0b), (reader: ProtobufReader) => reader.tag(), 'field 1 uses protobuf groups, which Kubernetes never sends at byte 0'],
    ['wire type 7', bytes(0x0f), (reader: ProtobufReader) => reader.tag(), 'field 1 has invalid wire type 7 at byte 0'],
    ['a fixed64 cut short', bytes(0x01, 0x02), (reader: ProtobufReader) => reader.skip(1), 'truncated fixed-size value at byte 0'],
  ])('rejects %s with a ProtobufWireError naming the offset', (_name, input, read, message) => {
    const reader = new ProtobufReader(input);
    expect(() => read(reader)).toThrow(ProtobufWireError);
    expect(() => read(new ProtobufReader(input))).toThrow(message);
  });

  it('never reads past the end of its own payload into the rest of the buffer', () => {
    // The outer field claims 1 byte, but the inner varint would continue into the next field.
    const reader = new ProtobufReader(bytes(0x0a, 0x01, 0x96, 0x01));
    reader.tag();
    const inner = reader.lengthDelimited();
    expect(() => inner.varint()).toThrow('truncated varint at byte 2');
  });
});

describe('ProtobufWriter', () => {
  it('writes what the reader reads back, and omits empty strings and false as proto3 does', () => {
    const nested = protobufMessage((writer) => writer.uint(1, 300));
    const encoded = new ProtobufWriter().string(1, 'hi').string(2, '').bool(3, false).bool(4, true).bytes(5, nested).uint(6, 0).finish();
    const reader = new ProtobufReader(encoded);
    const seen: [number, number][] = [];
    while (!reader.isDone()) {
      const tag = reader.tag();
      seen.push([tag.field, tag.wireType]);
      if (tag.field === 1) expect(Buffer.from(reader.lengthDelimited().rest()).toString()).toBe('hi');
      else if (tag.field === 5) {
        const inner = reader.lengthDelimited();
        inner.tag();
        expect(inner.varint()).toBe(300n);
      } else expect(reader.varint()).toBe(tag.field === 4 ? 1n : 0n);
    }
    expect(seen).toEqual([
      [1, 2],
      [4, 0],
      [5, 2],
      [6, 0],
    ]);
  });
});

import { isRecord } from '@notegate/kit';

/**
 * google.protobuf.Struct ⇄ JSON, in the shape @grpc/proto-loader uses with `oneofs: true`
 * (`{ fields: { name: { stringValue: 'x' } } }`). Only ValidateJWTSVID's claims travel this way.
 */
type ProtoValue =
  | { nullValue: 0 }
  | { numberValue: number }
  | { stringValue: string }
  | { boolValue: boolean }
  | { structValue: ProtoStruct }
  | { listValue: { values: ProtoValue[] } };

export interface ProtoStruct {
  fields: Record<string, ProtoValue>;
}

export function toProtoStruct(object: Record<string, unknown>): ProtoStruct {
  const fields: Record<string, ProtoValue> = {};
  for (const [key, value] of Object.entries(object)) fields[key] = toProtoValue(value);
  return { fields };
}

function toProtoValue(value: unknown): ProtoValue {
  if (value === null || value === undefined) return { nullValue: 0 };
  if (typeof value === 'number') return { numberValue: value };
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map(toProtoValue) } };
  if (isRecord(value)) return { structValue: toProtoStruct(value) };
  return { stringValue: String(value) };
}

/** Parses a decoded Struct back into plain JSON; anything that is not a Struct becomes `{}`. */
export function fromProtoStruct(struct: unknown): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  if (!isRecord(struct) || !isRecord(struct.fields)) return result;
  for (const [key, value] of Object.entries(struct.fields)) result[key] = fromProtoValue(value);
  return result;
}

function fromProtoValue(value: unknown): unknown {
  if (!isRecord(value) || typeof value.kind !== 'string') return null;
  const inner = value[value.kind];
  switch (value.kind) {
    case 'numberValue':
    case 'stringValue':
    case 'boolValue':
      return inner;
    case 'structValue':
      return fromProtoStruct(inner);
    case 'listValue':
      return isRecord(inner) && Array.isArray(inner.values) ? inner.values.map(fromProtoValue) : [];
    default:
      return null;
  }
}

import { isRecord } from '@notegate/kit';
import { fromProtoStruct } from './struct.js';

/**
 * Typed views of the decoded Workload API responses. proto-loader hands back plain objects;
 * these parsers are the boundary where they become typed values (missing fields are defaults).
 */
export interface JwtSvidEntry {
  readonly spiffeId: string;
  readonly svid: string;
  readonly hint: string;
}

export function parseJwtSvidResponse(message: object): JwtSvidEntry[] {
  const svids = 'svids' in message && Array.isArray(message.svids) ? message.svids : [];
  return svids.filter(isRecord).map((entry) => ({
    spiffeId: stringField(entry, 'spiffe_id'),
    svid: stringField(entry, 'svid'),
    hint: stringField(entry, 'hint'),
  }));
}

/** Key: trust-domain SPIFFE ID as sent; value: JWKS bytes. */
export function parseJwtBundlesResponse(message: object): Map<string, Uint8Array> {
  const bundles = new Map<string, Uint8Array>();
  const raw = 'bundles' in message && isRecord(message.bundles) ? message.bundles : {};
  for (const [key, value] of Object.entries(raw)) {
    if (value instanceof Uint8Array) bundles.set(key, value);
  }
  return bundles;
}

export interface ValidatedJwtSvid {
  readonly spiffeId: string;
  readonly claims: Record<string, unknown>;
}

export function parseValidateJwtSvidResponse(message: object): ValidatedJwtSvid {
  const record: Record<string, unknown> = { ...message };
  return { spiffeId: stringField(record, 'spiffe_id'), claims: fromProtoStruct(record.claims) };
}

/** Request fields as the server receives them (proto-loader defaults: empty string / empty array). */
export function requestStrings(message: object, field: string): string[] {
  const record: Record<string, unknown> = { ...message };
  const value = record[field];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return typeof value === 'string' && value !== '' ? [value] : [];
}

export function requestString(message: object, field: string): string {
  return stringField({ ...message }, field);
}

function stringField(record: Record<string, unknown>, field: string): string {
  const value = record[field];
  return typeof value === 'string' ? value : '';
}

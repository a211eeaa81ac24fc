import { quoted } from './audit-detail.js';

/**
 * The token request as the HTTP layer hands it over: a strictly decoded form, then (once no
 * parameter is repeated) the typed request the later steps read.
 */

/** Parameter name → its values in arrival order. Empty values are already dropped. */
export type FormParameters = ReadonlyMap<string, readonly string[]>;

/** The parameters of docs/protocol.md#token-request, each at most once (after rejectRepeatedParameters). */
export interface TokenRequest {
  readonly clientAssertion: string | undefined;
  readonly clientId: string | undefined;
  readonly resource: string | undefined;
  readonly scope: string | undefined;
}

export class FormEncodingError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'FormEncodingError';
  }
}

const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/;
const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';
/** The form is decoded as UTF-8 (WHATWG URL §5.1); US-ASCII is a subset of it. */
const ACCEPTED_CHARSETS: ReadonlySet<string> = new Set(['utf-8', 'utf8', 'us-ascii']);

/** RFC 6749 §4.4.2: the request is form encoded. Returns why not, or null when it is. */
export function formContentTypeProblem(contentType: string | undefined): string | null {
  if (contentType === undefined) return 'no Content-Type';
  const [mediaType = '', ...parameters] = contentType.split(';');
  if (mediaType.trim().toLowerCase() !== FORM_MEDIA_TYPE) return `Content-Type ${quoted(contentType)}`;
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() !== 'charset') continue;
    const charset = value
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (!ACCEPTED_CHARSETS.has(charset)) return `charset ${quoted(charset)}`;
  }
  return null;
}

/**
 * Decodes `application/x-www-form-urlencoded` strictly: a broken percent-escape or bytes that are
 * not UTF-8 are refused instead of being patched up, so what the checks see is what was sent.
 * RFC 6749 §3.2: a parameter without a value is treated as omitted.
 */
export function parseForm(body: Buffer): FormParameters {
  // Latin-1 maps each byte to one character, so the test below sees the raw bytes.
  const text = body.toString('latin1');
  // WHATWG URL §5.2: a serialized form is printable ASCII; anything else is percent-encoded.
  if (NOT_PRINTABLE_ASCII.test(text)) throw new FormEncodingError('raw bytes outside printable ASCII');
  const parameters = new Map<string, string[]>();
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = decodeComponent(equals === -1 ? pair : pair.slice(0, equals));
    const value = equals === -1 ? '' : decodeComponent(pair.slice(equals + 1));
    if (value === '') continue;
    const values = parameters.get(name);
    if (values === undefined) parameters.set(name, [value]);
    else values.push(value);
  }
  return parameters;
}

function decodeComponent(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    throw new FormEncodingError(`bad percent-encoding in ${quoted(text)}`);
  }
}

/** Why `name` does not carry exactly `expected` in every value sent (audit detail), or null when it does. */
export function valuesOtherThan(form: FormParameters, name: string, expected: string): string | null {
  const values = form.get(name);
  if (values === undefined) return `${name} is missing`;
  const other = values.find((value) => value !== expected);
  return other === undefined ? null : `${name} is ${quoted(other)}`;
}

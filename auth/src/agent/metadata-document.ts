import type { AgentStep } from './agent-errors.js';
import { quoted, transportFailed } from './agent-errors.js';
import type { HttpAnswer } from './http-exchange.js';
import { jsonObjectOf } from './http-exchange.js';

/**
 * A fetched metadata document (RFC 8414 / RFC 9728) with typed accessors; a missing or mistyped member
 * is a transport failure (`malformed_metadata`) naming the member and the URL.
 */
export class MetadataDocument {
  readonly #step: AgentStep;
  readonly #url: string;
  readonly #members: Record<string, unknown>;

  private constructor(step: AgentStep, url: string, members: Record<string, unknown>) {
    this.#step = step;
    this.#url = url;
    this.#members = members;
  }

  /** RFC 8414 §3.2 / RFC 9728 §3.2: a 200 answer with a JSON object. */
  static from(step: AgentStep, url: URL, answer: HttpAnswer): MetadataDocument {
    if (answer.status !== 200) {
      throw transportFailed(step, `http_${answer.status}`, `GET ${url.href} answered ${answer.status}, not 200`);
    }
    const members = jsonObjectOf(answer);
    if (!members) {
      throw transportFailed(step, 'malformed_metadata', `GET ${url.href} did not answer an application/json object`);
    }
    return new MetadataDocument(step, url.href, members);
  }

  string(member: string): string {
    const value = this.#members[member];
    if (typeof value !== 'string' || value === '') throw this.malformed(member, 'a non-empty string');
    return value;
  }

  /** An optional array of strings (RFC 8414 §3.2 / RFC 9728 §3.2: empty arrays are omitted, so [] is allowed). */
  optionalStrings(member: string): readonly string[] | undefined {
    const value = this.#members[member];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
      throw this.malformed(member, 'an array of strings');
    }
    return value;
  }

  /** RFC 8414 §2: endpoint URLs are absolute; ours must be http(s) without fragment or credentials. */
  url(member: string): URL {
    const url = absoluteHttpUrl(this.string(member));
    if (!url) throw this.malformed(member, 'an absolute http(s) URL without fragment or credentials');
    return url;
  }

  malformed(member: string, expected: string): Error {
    const seen = this.#members[member] === undefined ? 'missing' : quoted(JSON.stringify(this.#members[member]));
    return transportFailed(this.#step, 'malformed_metadata', `${this.#url}: ${member} must be ${expected} (${seen})`);
  }
}

/** `value` as an absolute http(s) URL without credentials or fragment, or undefined. */
export function absoluteHttpUrl(value: string): URL | undefined {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  const usable = url && ['http:', 'https:'].includes(url.protocol) && !url.username && !url.password;
  return usable && !value.includes('#') ? url : undefined;
}

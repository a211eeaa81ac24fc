import { UsageError } from '@notegate/kit/cli';
import { issuerForm, requireIssuerForm } from '../oauth/identifier.js';

/** The agent's `--trusted-issuer` allowlist: per process, not per resource (docs/security.md#residual-risks). */
export class IssuerAllowlist {
  /** The entries as given, for messages. */
  readonly entries: readonly string[];
  /** The entries in the issuer form (docs/protocol.md#identifiers). */
  readonly #formed: ReadonlySet<string>;

  private constructor(entries: readonly string[], formed: ReadonlySet<string>) {
    this.entries = entries;
    this.#formed = formed;
  }

  /** Validates every entry once; `source` names the flag or option for the error. */
  static parse(values: readonly string[], source: string): IssuerAllowlist {
    if (values.length === 0) throw new UsageError(`${source}: at least one trusted issuer is required`);
    const formed = values.map((value) => requireIssuerForm(value, source));
    return new IssuerAllowlist([...values], new Set(formed));
  }

  isTrusted(issuer: string): boolean {
    const form = issuerForm(issuer);
    return form.ok && this.#formed.has(form.value);
  }

  /**
   * docs/protocol.md#agent-notegate-agent, step 2: the FIRST advertised issuer on the allowlist, in the order
   * the metadata lists them.
   */
  firstTrusted(advertised: readonly string[]): string | undefined {
    return advertised.find((issuer) => this.isTrusted(issuer));
  }
}

/**
 * Why a JWT-SVID was refused. The rule is stable (tests and the token service switch on it);
 * the message is an audit-only detail and never reaches a client.
 */
export type SvidRule =
  | 'malformed'
  | 'algorithm'
  | 'typ'
  | 'header'
  | 'kid'
  | 'subject'
  | 'trust_domain'
  | 'bundle_unavailable'
  | 'untrusted'
  | 'signature'
  | 'claims'
  | 'expired'
  | 'audience';

export class SvidError extends Error {
  readonly code = 'ERR_JWT_SVID';
  readonly rule: SvidRule;

  constructor(rule: SvidRule, detail: string) {
    super(`${rule}: ${detail}`);
    this.name = 'SvidError';
    this.rule = rule;
  }
}

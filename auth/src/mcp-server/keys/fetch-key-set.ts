import { describeThrown } from '@notegate/kit';
import { readResponseText } from '@notegate/kit/http';
import { type KeySet, parseKeySet } from './key-set-document.js';

/** The fetch the key set source needs; injected so tests reach outages and count requests. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

const JWKS_FETCH_TIMEOUT_MS = 5_000;
/** A key set is a few KiB; anything far larger is not one. */
const MAX_KEY_SET_BYTES = 256 * 1024;

/** Why a key set fetch failed; never sent to clients (they get a fixed description). */
class KeySetFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeySetFetchError';
  }
}

/**
 * Fetches the key set from the configured URL only (never from a URL a token
 * names: no jku, x5u). Redirects are not followed, so the URL cannot be moved
 * elsewhere by whoever answers it.
 */
export async function fetchKeySet(url: string, fetchImpl: FetchLike): Promise<KeySet> {
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: 'GET',
      redirect: 'manual',
      headers: { accept: 'application/jwk-set+json, application/json' },
      signal: AbortSignal.timeout(JWKS_FETCH_TIMEOUT_MS),
    });
  } catch (err) {
    throw new KeySetFetchError(`GET ${url} failed: ${describeThrown(err)}`);
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new KeySetFetchError(`GET ${url} answered ${response.status}`);
  }
  const text = await readResponseText(response, MAX_KEY_SET_BYTES);
  if (text === null) throw new KeySetFetchError(`GET ${url} answered more than 256 KiB`);
  try {
    return parseKeySet(JSON.parse(text));
  } catch (err) {
    throw new KeySetFetchError(`GET ${url} did not answer a JWKS: ${describeThrown(err)}`);
  }
}

import { errorMessage } from '@notegate/kit';
import type { Redis } from 'ioredis';
import { ReplyError } from 'ioredis';
import { ReplayStoreError } from './replay-store.js';

/** A failed command of the Redis replay store as a ReplayStoreError, its failure classified for the metrics. */
export function storeError(err: unknown): ReplayStoreError {
  const message = errorMessage(err);
  if (err instanceof ReplyError) return new ReplayStoreError('error', message);
  if (message === 'Command timed out') return new ReplayStoreError('timeout', `no answer within the command timeout`);
  return new ReplayStoreError('unreachable', message);
}

/**
 * The connection events of a Redis replay store, for the operator's log. Logs the transitions only: a
 * store that stays down is told once, not once per reconnect attempt. Returns what stops the reports.
 */
export function reportConnection(redis: Redis, display: string, onEvent: (message: string) => void): () => void {
  let connected = false;
  let lastError: string | undefined;
  let stopped = false;
  const report = (message: string) => {
    if (!stopped) onEvent(`replay store ${display}: ${message}`);
  };
  redis.on('ready', () => {
    connected = true;
    lastError = undefined;
    report('connected');
  });
  redis.on('error', (err: Error) => {
    if (err.message === lastError) return;
    lastError = err.message;
    report(err.message);
  });
  redis.on('close', () => {
    if (!connected) return;
    connected = false;
    report('connection lost; token requests in reject mode get 503 until it is back');
  });
  return () => {
    stopped = true;
  };
}

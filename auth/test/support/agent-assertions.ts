import assert from 'node:assert/strict';
import type { AgentStep, FailureClass } from '../../src/agent/agent-errors.js';
import { AgentError } from '../../src/agent/agent-errors.js';

/** Awaits `promise` and checks it failed at `step` with `reason`, in `failureClass`; returns the error. */
export async function rejectsAt(
  promise: Promise<unknown>,
  step: AgentStep,
  reason: string,
  failureClass: FailureClass,
): Promise<AgentError> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof AgentError, `expected an AgentError, got ${String(caught)}`);
  assert.equal(caught.step, step, caught.message);
  assert.equal(caught.reason, reason, caught.message);
  assert.equal(caught.failureClass, failureClass, caught.message);
  assert.doesNotMatch(caught.message, /\n/, 'one line');
  return caught;
}

/** Helpers for the tests of every notegate package (`@notegate/kit/testing`); never used by a program. */

export { capturedIo } from './captured-io.js';
export { assertOptionsDocumented, unwrapHelp } from './help-output.js';
